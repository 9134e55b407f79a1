import type { PGlite } from '@electric-sql/pglite';

/** How many statement texts stay prepared in the embedded session (least recently used go). */
const CAPACITY = 256;

/**
 * Server-side prepared statements for the embedded database, used through the simple-query
 * path: `EXECUTE name(literal, …)`. Planning is about 80 µs of a 200 µs statement in PGlite's
 * WebAssembly backend, and the hot paths repeat the same few statement texts all day.
 *
 * A text whose parameter types PostgreSQL cannot infer is remembered as unpreparable and
 * inlined instead. Nothing is prepared inside a transaction: a failing PREPARE would abort it.
 * Prepared statements belong to the session and survive rollbacks.
 */
export class PreparedStatements {
  private readonly names = new Map<string, string | null>();
  private counter = 0;

  constructor(
    private readonly pglite: Pick<PGlite, 'exec'>,
    private readonly inline: (text: string, values: readonly unknown[]) => string,
    private readonly literal: (value: unknown) => string,
  ) {}

  /**
   * The SQL to send for one statement. `mayPrepare` is false inside a transaction: only
   * statements prepared earlier are executed by name there.
   */
  async sqlFor(text: string, values: readonly unknown[], mayPrepare: boolean): Promise<string> {
    if (!values.length) return text;
    let name = this.names.get(text);
    if (name === undefined && mayPrepare) name = await this.prepare(text);
    if (!name) return this.inline(text, values);
    // most recently used last, so eviction takes the oldest
    this.names.delete(text);
    this.names.set(text, name);
    return `EXECUTE ${name}(${values.map(this.literal).join(', ')})`;
  }

  private async prepare(text: string): Promise<string | null> {
    if (this.names.size >= CAPACITY) await this.evictOldest();
    const name = `helix_s${++this.counter}`;
    try {
      await this.pglite.exec(`PREPARE ${name} AS ${text}`);
    } catch {
      this.names.set(text, null); // e.g. "could not determine data type of parameter $1"
      return null;
    }
    this.names.set(text, name);
    return name;
  }

  private async evictOldest(): Promise<void> {
    for (const [text, name] of this.names) {
      this.names.delete(text);
      if (name) await this.pglite.exec(`DEALLOCATE ${name}`);
      return;
    }
  }
}
