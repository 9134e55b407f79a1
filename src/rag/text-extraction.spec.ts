import { minimalPdf } from '../../test/support/pdf-fixture';
import { readPdfText } from './pdf-text';
import { ExtractionError, extractText } from './text-extraction';

const isNative = (fn: unknown) => typeof fn === 'function' && /\{\s*\[native code\]\s*\}/.test(Function.prototype.toString.call(fn));

describe('extractText', () => {
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
    await expect(readPdfText(minimalPdf(['slow']), 1)).rejects.toThrow('reading it took longer than 0.001 s');
  });

  it('decodes text, Markdown and HTML without a worker; HTML headings become Markdown headings', async () => {
    expect(await extractText('text', Buffer.from('\uFEFFplain text'))).toBe('plain text');
    const html = await extractText('html', Buffer.from('<h2>Setup</h2><p>Install it.</p><script>alert(1)</script>'));
    expect(html).toContain('## Setup');
    expect(html).toContain('Install it.');
    expect(html).not.toContain('alert');
  });
});
