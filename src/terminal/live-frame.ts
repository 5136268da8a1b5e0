import type { Output } from './io.js';

/** How a terminal measures text: its width in columns, and the one width function. */
export interface LineFit {
  columns: number;
  width(text: string): number;
}

/** The terminal a line is drawn on: its width now, how text measures, and its resizes. */
export interface LineTerminal {
  /** Columns now, or undefined when the terminal does not say. */
  columns(): number | undefined;
  width(text: string): number;
  /** Calls `listener` at each resize (SIGWINCH); returns what stops it. */
  onResize?(listener: () => void): () => void;
}

/**
 * One line redrawn in place at the foot of stderr: the progress line and the countdown of a
 * short command's wait both draw through it, so both fit the terminal and follow its resizes
 * the same way. Each frame replaces the last on the same row; a frame must be narrower than
 * the terminal (one as wide may wrap, and a wrapped line cannot be redrawn in place).
 */
export class LiveFrame {
  /** The frame on the screen, if any: a resize may have wrapped it over several rows. */
  private shown = '';

  constructor(
    private readonly stderr: Output,
    private readonly terminal?: LineTerminal,
  ) {}

  /** The terminal's width and measure now, or undefined when it does not say. */
  fit(): LineFit | undefined {
    const columns = this.terminal?.columns();
    return this.terminal && columns ? { columns, width: this.terminal.width } : undefined;
  }

  show(frame: string): void {
    this.stderr.write(`\r\u001b[2K${frame}`);
    this.shown = frame;
  }

  /**
   * Follows the terminal's resizes, calling `redraw` after each, until the returned function
   * is called. A narrower terminal may have wrapped the frame shown over several rows
   * (terminals that reflow, as tmux and most do): all of them are erased before the redraw.
   */
  followResizes(redraw: () => void): () => void {
    return (
      this.terminal?.onResize?.(() => {
        const fit = this.fit();
        if (fit && this.shown) {
          const rows = Math.ceil(fit.width(this.shown) / fit.columns);
          if (rows > 1) this.stderr.write(`\r\u001b[${rows - 1}A\u001b[J`);
        }
        redraw();
      }) ?? (() => {})
    );
  }

  /** Erases the line. */
  clear(): void {
    this.stderr.write('\r\u001b[2K');
    this.shown = '';
  }
}

/**
 * The first of `candidates`, fullest first, narrower than the terminal (`fit`), else the
 * longest start of the last one that is: what a live line shows at the terminal's width.
 */
export function fitLine(candidates: string[], fit: LineFit): string {
  const room = fit.columns - 1;
  const fits = (line: string) => fit.width(line) <= room;
  const chosen = candidates.find(fits) ?? candidates.at(-1) ?? '';
  if (fits(chosen)) return chosen;
  let cut = chosen;
  while (cut.length > 0 && fit.width(cut) > room) cut = cut.slice(0, -1);
  return cut;
}
