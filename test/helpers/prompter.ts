import type { Prompter } from '../../src/terminal/prompt.js';

export interface ScriptedPrompter extends Prompter {
  /** Each question's message, in the order asked. */
  readonly asked: string[];
  /** Why each refused answer was refused (a text question's check). */
  readonly refusals: string[];
}

/**
 * A person at the terminal who types `answers` in turn, one per question: a text question
 * takes answers until its check lets one through, a select takes the choice named (or, for
 * '', the default). Asked beyond its answers, it fails the
 * test; `noPerson()` fails at the first question.
 */
export function scriptedPrompter(answers: readonly string[]): ScriptedPrompter {
  const asked: string[] = [];
  const refusals: string[] = [];
  let next = 0;
  const typed = (message: string) => {
    if (next >= answers.length) throw new Error(`no answer left for "${message}"`);
    return answers[next++]!;
  };
  return {
    asked,
    refusals,
    async text(question) {
      asked.push(question.message);
      for (;;) {
        const answer = typed(question.message);
        const why = question.check?.(answer);
        if (why === undefined) return answer;
        refusals.push(why);
      }
    },
    async select(question) {
      asked.push(question.message);
      const answer = typed(question.message);
      if (answer === '' && question.default !== undefined) return question.default;
      const choice = question.choices.find(({ value }) => value === answer);
      if (!choice) throw new Error(`"${answer}" is not a choice of "${question.message}"`);
      return choice.value;
    },
    async secret(question) {
      asked.push(question.message);
      return typed(question.message);
    },
  };
}

/** Nobody at the terminal: any question fails the test. */
export const noPerson = (): ScriptedPrompter => scriptedPrompter([]);
