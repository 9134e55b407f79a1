/** What clients were shown of a step before a restart cut it off. */
export interface Shown {
  text: string;
  reasoning: string;
}

type Channel = keyof Shown;

/** What to send clients for one delta of the new answer. */
export interface EchoOutput {
  /** to emit for this channel (at a restart: everything the new answer has so far) */
  emit: Partial<Shown>;
  /** the new answer departs from what was shown: the text shown is kept, the step shown again */
  restarted?: { shownText: string };
}

/**
 * The output of one model answer as clients see it. Normally every delta is streamed as it
 * comes. When a step is asked again after a crash, clients already saw part of the cut-off
 * attempt (its text and its reasoning: the echo): while the new answer repeats it, nothing is
 * streamed again, and only what goes beyond it is, so the run's events still spell exactly the
 * stored answer. If the new answer departs from the echo in either channel, the step restarts:
 * the echo is given up and the new answer so far is streamed from its start.
 */
export class StepEcho {
  /** the new answer so far */
  readonly value: Shown = { text: '', reasoning: '' };
  /** per channel, what was shown and has not been repeated yet (absent once passed) */
  private echo: Partial<Shown> = {};

  constructor(shown?: Shown) {
    if (shown?.text) this.echo.text = shown.text;
    if (shown?.reasoning) this.echo.reasoning = shown.reasoning;
  }

  /** what clients have been shown of this step's text */
  get shownText(): string {
    // while the text is repeating its echo, the echo is what was shown
    return this.echo.text ?? this.value.text;
  }

  push(channel: Channel, delta: string): EchoOutput {
    this.value[channel] += delta;
    const echo = this.echo[channel];
    if (echo === undefined) return { emit: { [channel]: delta } };
    const value = this.value[channel];
    if (value.length <= echo.length) return echo.startsWith(value) ? { emit: {} } : this.restart();
    if (!value.startsWith(echo)) return this.restart();
    delete this.echo[channel];
    return { emit: { [channel]: value.slice(echo.length) } };
  }

  /** At the end of the answer: an echo longer than the answer was not repeated in full. */
  end(): EchoOutput {
    const unrepeated = (channel: Channel) => this.echo[channel] !== undefined && this.echo[channel] !== this.value[channel];
    return unrepeated('text') || unrepeated('reasoning') ? this.restart() : { emit: {} };
  }

  private restart(): EchoOutput {
    const shownText = this.shownText;
    this.echo = {};
    return { emit: { ...this.value }, restarted: { shownText } };
  }
}
