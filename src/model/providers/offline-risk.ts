/** in a system message: the risk analyzer's rubric (src/runtime/loop/risk-analyzer.ts) */
export const RISK_PHRASE = 'rate its risk from the tool name and arguments only';

/** Words in a tool's name or arguments that make the offline model rate a call high, then medium. */
const HIGH = ['delete', 'remove', 'rm', 'drop', 'truncate', 'kill', 'shutdown', 'exec', 'shell', 'sudo', 'chmod', 'chown', 'send', 'email', 'publish', 'pay', 'transfer', 'password', 'secret', 'credential'];
const MEDIUM = ['write', 'edit', 'update', 'create', 'insert', 'put', 'patch', 'move', 'rename', 'upload', 'post'];

/**
 * The offline model's answer to the risk rubric: a rating read from the words of the call
 * (`Tool: name` and `Arguments: json` in the user message), so a run with the analyzer on behaves
 * the same every time without a key: a word of HIGH rates it high, else one of MEDIUM medium,
 * else low. The reason names the word that decided.
 */
export function offlineRating(call: string): string {
  const words = new Set(call.toLowerCase().match(/[a-z]+/g) ?? []);
  const high = HIGH.find((word) => words.has(word));
  if (high) return JSON.stringify({ risk: 'high', reason: `The call mentions "${high}", which may change or expose things.` });
  const medium = MEDIUM.find((word) => words.has(word));
  if (medium) return JSON.stringify({ risk: 'medium', reason: `The call mentions "${medium}": it may change something that can be undone.` });
  return JSON.stringify({ risk: 'low', reason: 'The call only reads or computes.' });
}
