/** What a label value past the cap is counted as. */
export const OTHER_LABEL = 'other';

/**
 * Bounds the distinct values of one label. Model and tool names come from configuration and
 * from the models themselves, and every distinct value is a series Prometheus keeps: past
 * `max` values, new ones are counted as `other` rather than growing the scrape without bound.
 */
export class LabelCap {
  private readonly seen = new Set<string>();

  constructor(private readonly max = 200) {}

  value(raw: string): string {
    if (this.seen.has(raw)) return raw;
    if (this.seen.size >= this.max) return OTHER_LABEL;
    this.seen.add(raw);
    return raw;
  }
}
