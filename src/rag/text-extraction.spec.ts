import { minimalPdf } from '../../test/support/pdf-fixture';
import { closeExtractionPool, MAX_HTML_DEPTH } from './extraction-pool';
import { ExtractionError, extractText, isBinary, readPdfText } from './text-extraction';

const isNative = (fn: unknown) => typeof fn === 'function' && /\{\s*\[native code\]\s*\}/.test(Function.prototype.toString.call(fn));

describe('extractText', () => {
  afterAll(() => closeExtractionPool());

  it('reads the text of a PDF, in a worker that leaves the server thread\'s globals alone', async () => {
    expect(isNative(JSON.parse)).toBe(true);
    const text = await extractText('pdf', minimalPdf(['Helix manual', 'The turbine rotor spins clockwise.']));
    expect(text).toContain('Helix manual');
    expect(text).toContain('The turbine rotor spins clockwise.');
    // pdf-parse's bundle replaces JSON.parse with a core-js polyfill wherever it is loaded
    expect(isNative(JSON.parse)).toBe(true);
  });

  it('fails a corrupt PDF with pdf.js\'s reason, and leaves the upload\'s bytes as they were', async () => {
    const corrupt = Buffer.from('%PDF-1.4 this is not really a pdf');
    const copy = Buffer.from(corrupt);
    await expect(extractText('pdf', corrupt)).rejects.toThrow(ExtractionError);
    await expect(extractText('pdf', corrupt)).rejects.toThrow(/^the PDF could not be read: \S/);
    expect(corrupt.equals(copy)).toBe(true);
  });

  it('gives up on a PDF that takes too long', async () => {
    // 50,000 lines take the worker far longer than 5 ms even warm (a one-line PDF might not)
    const long = minimalPdf(Array.from({ length: 50_000 }, (_, i) => `slow line ${i}`));
    await expect(readPdfText(long, 5)).rejects.toThrow('reading it took longer than 0.005 s');
  });

  it('reads that long PDF given the time', async () => {
    const long = minimalPdf(Array.from({ length: 50_000 }, (_, i) => `slow line ${i}`));
    const started = Date.now();
    expect(await readPdfText(long)).toContain('slow line 0');
    // the figure the test above relies on, stated where a much faster machine would show it
    expect(Date.now() - started).toBeGreaterThan(5);
  });

  it('decodes text, Markdown and HTML in the worker too; HTML headings become Markdown headings', async () => {
    expect(await extractText('text', Buffer.from('\uFEFFplain text'))).toBe('plain text');
    const html = await extractText('html', Buffer.from('<h2>Setup</h2><p>Install it.</p><script>alert(1)</script>'));
    expect(html).toContain('## Setup');
    expect(html).toContain('Install it.');
    expect(html).not.toContain('alert');
  });

  it('refuses HTML nested deeper than the limit, and reads it at the limit (implied and void closes counted right)', async () => {
    const nested = (depth: number) => Buffer.from(`${'<div>'.repeat(depth)}deep${'</div>'.repeat(depth)}`);
    await expect(extractText('html', nested(200_000))).rejects.toThrow(`the HTML nests elements more than ${MAX_HTML_DEPTH} levels deep`);
    // html > body > divs: the parser counts what is written, the limit is on that
    expect(await extractText('html', nested(MAX_HTML_DEPTH))).toBe('deep');
    const siblings = Buffer.from(`<ul>${'<li>item<br><img src=x>'.repeat(5_000)}</ul><p>end`);
    expect(await extractText('html', siblings)).toContain('end');
  });

  it('tells binary content (a NUL byte) from text', () => {
    expect(isBinary(Buffer.from('text\u0000more'))).toBe(true);
    expect(isBinary(Buffer.from('plain text, ünïcode 文本'))).toBe(false);
  });
});
