/**
 * `file_edit`'s exact string replacement, pure. The match must be unique: an edit the model
 * meant for one place must not silently change another, so several matches are an error that
 * says how many there are (the model then adds surrounding lines to `old`).
 */
export type EditOutcome = { ok: true; text: string } | { ok: false; error: string };

/** Occurrences of `needle` in `text`, not overlapping (as a replacement would see them). */
export function countMatches(text: string, needle: string): number {
  if (!needle) return 0;
  let count = 0;
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) count++;
  return count;
}

export function replaceUnique(text: string, path: string, oldText: string, newText: string): EditOutcome {
  if (!oldText) return { ok: false, error: '`old` is empty: give the exact text to replace (use file_write to create or overwrite a whole file).' };
  if (oldText === newText) return { ok: false, error: '`old` and `new` are the same text: nothing would change.' };
  const count = countMatches(text, oldText);
  if (count === 0) {
    return { ok: false, error: `The text given as \`old\` was not found in ${path} (it must match exactly, whitespace and line breaks included; read the file with file_read first).` };
  }
  if (count > 1) {
    return { ok: false, error: `The text given as \`old\` occurs ${count} times in ${path}; it must occur exactly once. Include more of the surrounding lines in \`old\` to pick one.` };
  }
  const at = text.indexOf(oldText);
  // slice, not String.replace: `$&` and `$1` in the new text are literal characters
  return { ok: true, text: text.slice(0, at) + newText + text.slice(at + oldText.length) };
}

/** Lines `from`..`to` (1-based, inclusive; `to` past the end stops at the end), each prefixed with its number. */
export function lineRange(text: string, from = 1, to?: number): { text: string; totalLines: number } {
  const lines = text.split('\n');
  // a final newline ends the last line; it does not start an empty one
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  const last = Math.min(to ?? lines.length, lines.length);
  const width = String(last).length;
  const picked = lines.slice(from - 1, last).map((line, i) => `${String(from + i).padStart(width)}\t${line}`);
  return { text: picked.join('\n'), totalLines: lines.length };
}
