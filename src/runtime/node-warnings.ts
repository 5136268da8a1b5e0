import type { Notice } from '../terminal/stderr-notices.js';

/** Where pets writes a warning: StderrNotices, as main or the session holds it. */
interface WarningSink {
  write(kind: 'warning', notice: Notice): void;
}

/** Node's warnings of a JSON run, held until the run can write them as its own. */
export interface NodeWarnings {
  /**
   * Writes them with the session's stderr once `session()` gives one (--quiet silences them
   * there, as pets's own warnings); until then they are held.
   */
  writeWith(
    session: () => { terminal: { options: { quiet: boolean }; stderr: WarningSink } } | undefined,
    fallback: WarningSink,
  ): void;
  /** Writes what is still held, without the session if there is none: the run is ending. */
  flush(): void;
}

/**
 * Takes Node's warnings over from Node's own printer, which writes lines of text on stderr:
 * in a JSON run (`json()`) each becomes a `warning` object, written where pets writes its own;
 * otherwise Node's printer prints it as ever. With --no-warnings Node has no printer, and pets
 * prints none either.
 */
export function routeNodeWarnings(json: () => boolean): NodeWarnings {
  const printers = process.listeners('warning');
  const held: Notice[] = [];
  let sink: (ending: boolean) => WarningSink | null | undefined = () => undefined;
  // Once the run has flushed, a later warning (while it closes) is written at once.
  let ended = false;
  const write = (ending: boolean) => {
    ended ||= ending;
    const to = sink(ended);
    if (to !== undefined) for (const notice of held.splice(0)) to?.write('warning', notice);
  };
  if (printers.length > 0) {
    process.removeAllListeners('warning');
    process.on('warning', (warning: Error & { code?: unknown }) => {
      if (!json()) {
        for (const print of printers) print.call(process, warning);
        return;
      }
      // A deprecation, an experimental feature, …: Node's own code, when it gave one.
      const nodeCode = typeof warning.code === 'string' ? warning.code : null;
      held.push({ code: 'node_warning', message: warning.message, name: warning.name, nodeCode });
      write(false);
    });
  }
  return {
    writeWith(session, fallback) {
      // null: --quiet, so written nowhere; undefined: not yet.
      sink = (ending) => {
        const made = session();
        if (made) return made.terminal.options.quiet ? null : made.terminal.stderr;
        return ending ? fallback : undefined;
      };
    },
    flush: () => write(true),
  };
}
