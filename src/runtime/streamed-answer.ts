/**
 * The text of one model answer as clients see it. Normally every delta is streamed as it comes.
 * When a step is asked again after a crash, clients already saw the cut-off attempt's text (the
 * echo): while the new answer repeats it, nothing is streamed again, and only what goes beyond
 * it is, so the run's token events still spell exactly the stored answer. If the new answer
 * departs from the echo, the echo is `diverged` (to be kept as a partial message) and the new
 * answer is streamed from its start.
 */
export class StreamedAnswer {
  /** the new answer so far */
  text = '';

  constructor(private echo?: string) {}

  /** what clients have been shown of this step */
  get shown(): string {
    return this.echo !== undefined && this.echo.length > this.text.length ? this.echo : this.text;
  }

  push(delta: string): { emit: string; diverged?: string } {
    this.text += delta;
    const echo = this.echo;
    if (echo === undefined) return { emit: delta };
    if (this.text.length <= echo.length) {
      return echo.startsWith(this.text) ? { emit: '' } : this.diverge(echo);
    }
    if (!this.text.startsWith(echo)) return this.diverge(echo);
    this.echo = undefined;
    return { emit: this.text.slice(echo.length) };
  }

  /** at the end of the answer: an echo longer than the answer was not repeated in full */
  end(): { emit: string; diverged?: string } {
    const echo = this.echo;
    if (echo === undefined || echo === this.text) {
      this.echo = undefined;
      return { emit: '' };
    }
    return this.diverge(echo);
  }

  private diverge(echo: string): { emit: string; diverged: string } {
    this.echo = undefined;
    return { emit: this.text, diverged: echo };
  }
}
