// How many times a test tries its promise. `npm test` tries each a few times, quickly;
// `npm run test:trials` (the trials project, which sets PETS_TRIALS) as many times as the file
// names. A file whose tries are worth repeating has a twin, `<name>.trials.ts`, that imports it.
// An environment variable a file reads for its count still wins over both.

export const inTrials = process.env.PETS_TRIALS === '1';

/** `full` tries under test:trials, at most `quick` under npm test. */
export function trials(full: number, quick = 1): number {
  return inTrials ? full : Math.min(full, quick);
}

/** The cases to try: all of them under test:trials, the representative few under npm test. */
export function cases<T>(all: readonly T[], quick: readonly T[]): readonly T[] {
  return inTrials ? all : quick;
}
