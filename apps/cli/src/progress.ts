// Progress of long commands: a bar (cli-progress) on a terminal, plain lines otherwise (logs, CI, pipes).
import { SingleBar, Presets } from 'cli-progress';

export interface Progress {
  /** Starts a step of `total` units. */
  step(label: string, total: number): void;
  tick(units?: number): void;
  /** Ends the current step. */
  end(): void;
  /** A message between steps. */
  note(message: string): void;
}

/** Progress goes to stderr, so stdout stays the command's result (e.g. a key, or JSON with --json). */
export function createProgress(stream: NodeJS.WriteStream = process.stderr, quiet = false): Progress {
  if (quiet) return { step() {}, tick() {}, end() {}, note() {} };
  return stream.isTTY ? new BarProgress(stream) : new LineProgress(stream);
}

class BarProgress implements Progress {
  private bar?: SingleBar;

  constructor(private readonly stream: NodeJS.WriteStream) {}

  step(label: string, total: number) {
    this.end();
    this.bar = new SingleBar(
      { stream: this.stream, format: `${label.padEnd(24)} {bar} {value}/{total}`, hideCursor: true },
      Presets.shades_classic,
    );
    this.bar.start(total, 0);
  }

  tick(units = 1) {
    this.bar?.increment(units);
  }

  end() {
    this.bar?.stop();
    this.bar = undefined;
  }

  note(message: string) {
    this.end();
    this.stream.write(`${message}\n`);
  }
}

/** One line when a step starts, at every further tenth, and when it ends. */
class LineProgress implements Progress {
  private label = '';
  private total = 0;
  private done = 0;
  private shownTenth = 0;

  constructor(private readonly stream: NodeJS.WriteStream) {}

  step(label: string, total: number) {
    this.end();
    Object.assign(this, { label, total, done: 0, shownTenth: 0 });
    this.stream.write(`${label}: 0/${total}\n`);
  }

  tick(units = 1) {
    this.done += units;
    const tenth = this.total ? Math.floor((this.done * 10) / this.total) : 10;
    if (tenth > this.shownTenth && this.done < this.total) {
      this.shownTenth = tenth;
      this.stream.write(`${this.label}: ${this.done}/${this.total}\n`);
    }
  }

  end() {
    if (!this.label) return;
    this.stream.write(`${this.label}: ${this.done}/${this.total} done\n`);
    this.label = '';
  }

  note(message: string) {
    this.end();
    this.stream.write(`${message}\n`);
  }
}
