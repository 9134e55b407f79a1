/**
 * One server text: its English template (what is stored, logged and answered by default) and its
 * Chinese one, with the same `{placeholders}`. `nested` names placeholders whose values are
 * catalogue texts themselves (a model error inside a 400), translated in turn; every other
 * value (an id, a state, a field, a user’s words) is carried over exactly as it is. Each template
 * is one string literal: a concatenation would lose the literal type `say` checks placeholders by.
 */
export interface CatalogueEntry {
  readonly en: string;
  readonly zh: string;
  readonly nested?: readonly string[];
}
