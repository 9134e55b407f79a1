import DOMPurify from 'dompurify';
import MarkdownIt, { type StateInline } from 'markdown-it';

/**
 * Model text as HTML. markdown-it with `html: false` shows any HTML the model writes as text
 * and refuses `javascript:`/`vbscript:`/`data:` links; DOMPurify then sanitises the result
 * again, so a renderer bug alone cannot put a script in the page.
 */
const md = new MarkdownIt({ html: false, linkify: true, breaks: false, typographer: false });

/** `[3]` → a link to source 3 of the answer (when the answer has that many sources). */
function citation(state: StateInline, silent: boolean): boolean {
  const match = /^\[(\d{1,3})\](?![([])/.exec(state.src.slice(state.pos));
  if (!match) return false;
  const n = Number(match[1]);
  const count = (state.env as { citations?: number }).citations ?? 0;
  if (n < 1 || n > count) return false;
  if (!silent) {
    const token = state.push('citation', '', 0);
    token.meta = { n };
  }
  state.pos += match[0].length;
  return true;
}
md.inline.ruler.before('link', 'citation', citation);
md.renderer.rules.citation = (tokens, index) => {
  const n = (tokens[index].meta as { n: number }).n;
  return `<a class="citation" href="#source-${n}" data-citation="${n}">[${n}]</a>`;
};

// links open in a new tab, never with access to this page
const defaultLinkOpen = md.renderer.rules.link_open ?? ((tokens, index, options, _env, self) => self.renderToken(tokens, index, options));
md.renderer.rules.link_open = (tokens, index, options, env, self) => {
  tokens[index].attrSet('target', '_blank');
  tokens[index].attrSet('rel', 'noopener noreferrer nofollow');
  return defaultLinkOpen(tokens, index, options, env, self);
};

DOMPurify.addHook('afterSanitizeAttributes', (node) => {
  if (node.tagName === 'A' && node.getAttribute('target') === '_blank') node.setAttribute('rel', 'noopener noreferrer nofollow');
});

export function renderMarkdown(text: string, citations = 0): string {
  const html = md.render(text, { citations });
  return DOMPurify.sanitize(html, { ADD_ATTR: ['target'], FORBID_TAGS: ['style', 'form', 'input'], ALLOW_DATA_ATTR: true });
}
