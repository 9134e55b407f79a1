import { extname } from 'node:path';
import { convert } from 'html-to-text';
import { readPdfText } from './pdf-text';

/** The uploaded file formats, by extension, with the MIME types that name them. */
export const FORMATS = {
  text: { extensions: ['.txt', '.text'], mimeTypes: ['text/plain'], mimeType: 'text/plain' },
  markdown: { extensions: ['.md', '.markdown'], mimeTypes: ['text/markdown', 'text/x-markdown'], mimeType: 'text/markdown' },
  html: { extensions: ['.html', '.htm'], mimeTypes: ['text/html'], mimeType: 'text/html' },
  pdf: { extensions: ['.pdf'], mimeTypes: ['application/pdf'], mimeType: 'application/pdf' },
} as const;
export type Format = keyof typeof FORMATS;

/** The format of an upload: by its extension, else by its MIME type; undefined when unsupported. */
export function formatOf(fileName: string, mimeType: string): Format | undefined {
  const ext = extname(fileName).toLowerCase();
  const entries = Object.entries(FORMATS) as Array<[Format, (typeof FORMATS)[Format]]>;
  const byExtension = entries.find(([, f]) => (f.extensions as readonly string[]).includes(ext));
  if (byExtension) return byExtension[0];
  const mime = mimeType.split(';')[0].trim().toLowerCase();
  return entries.find(([, f]) => (f.mimeTypes as readonly string[]).includes(mime))?.[0];
}

/** Why a file's text could not be extracted: the job's error. */
export class ExtractionError extends Error {}

/** HTML headings become Markdown headings, so chunks keep their heading path. */
const headingSelectors = [1, 2, 3, 4, 5, 6].map((level) => ({
  selector: `h${level}`,
  format: 'markdownHeading',
  options: { level },
}));

function htmlToText(html: string): string {
  return convert(html, {
    wordwrap: false,
    selectors: [
      ...headingSelectors,
      { selector: 'a', options: { ignoreHref: true } },
      { selector: 'img', format: 'skip' },
      { selector: 'script', format: 'skip' },
      { selector: 'style', format: 'skip' },
    ],
    formatters: {
      markdownHeading: (elem, walk, builder, options) => {
        builder.openBlock({ leadingLineBreaks: 2 });
        builder.addLiteral(`${'#'.repeat(Number((options as { level?: number }).level ?? 1))} `);
        walk(elem.children, builder);
        builder.closeBlock({ trailingLineBreaks: 2 });
      },
    },
  });
}

async function pdfToText(data: Buffer): Promise<string> {
  try {
    return await readPdfText(data);
  } catch (error) {
    throw new ExtractionError(`the PDF could not be read: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** The text of an uploaded file. Throws ExtractionError saying why when there is none. */
export async function extractText(format: Format, data: Buffer): Promise<string> {
  if (format === 'pdf') return pdfToText(data);
  const text = new TextDecoder('utf-8', { fatal: false }).decode(data).replace(/^\uFEFF/, '');
  return format === 'html' ? htmlToText(text) : text;
}
