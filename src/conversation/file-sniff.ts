import { isUtf8 } from 'node:buffer';
import { extname } from 'node:path';

/** The images a vision model may be sent, by their magic numbers. */
export const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'image/gif'] as const;
/** The text kinds an attachment may be, picked by the name's extension once the bytes are text. */
export const TEXT_TYPES = ['text/plain', 'text/markdown', 'text/html', 'application/json', 'text/csv'] as const;
export const PDF_TYPE = 'application/pdf';

export type ImageType = (typeof IMAGE_TYPES)[number];
export type TextType = (typeof TEXT_TYPES)[number];
export type AttachmentType = ImageType | TextType | typeof PDF_TYPE;

/** What the bytes of an attachment are; `refused` says why they are not taken. */
export type Sniffed =
  | { kind: 'image'; mediaType: ImageType }
  | { kind: 'pdf'; mediaType: typeof PDF_TYPE }
  | { kind: 'text'; mediaType: TextType }
  | { kind: 'refused'; reason: 'spoofed' | 'unsupported' };

const TEXT_BY_EXTENSION: Readonly<Record<string, TextType>> = {
  '.txt': 'text/plain',
  '.text': 'text/plain',
  '.log': 'text/plain',
  '.md': 'text/markdown',
  '.markdown': 'text/markdown',
  '.html': 'text/html',
  '.htm': 'text/html',
  '.json': 'application/json',
  '.csv': 'text/csv',
};

/**
 * Extensions of the kinds sniffed by magic number, and of other binary kinds: text bytes under such a name are a spoofed file (a
 * `photo.png` that is a script), refused rather than guessed at.
 */
const IMAGE_OR_PDF_EXTENSIONS = new Set(['.png', '.jpg', '.jpeg', '.webp', '.gif', '.pdf']);
const BINARY_EXTENSIONS = new Set([
  '.bmp', '.tif', '.tiff', '.ico', '.svg', '.heic',
  '.exe', '.dll', '.so', '.bin', '.zip', '.gz', '.tgz', '.7z', '.rar', '.tar', '.jar', '.apk', '.dmg', '.iso', '.msi',
  '.doc', '.docx', '.xls', '.xlsx', '.ppt', '.pptx', '.mp3', '.mp4', '.mov', '.wav', '.avi',
]);

const startsWith = (bytes: Uint8Array, prefix: readonly number[], at = 0) =>
  bytes.length >= at + prefix.length && prefix.every((byte, i) => bytes[at + i] === byte);
const ascii = (text: string) => Array.from(text, (c) => c.charCodeAt(0));

const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const JPEG = [0xff, 0xd8, 0xff];
const GIF87 = ascii('GIF87a');
const GIF89 = ascii('GIF89a');
const RIFF = ascii('RIFF');
const WEBP = ascii('WEBP');
const PDF = ascii('%PDF-');

/** The image type of `bytes` by its magic number, if it is one of IMAGE_TYPES. */
function imageType(bytes: Uint8Array): ImageType | undefined {
  if (startsWith(bytes, PNG)) return 'image/png';
  if (startsWith(bytes, JPEG)) return 'image/jpeg';
  if (startsWith(bytes, GIF87) || startsWith(bytes, GIF89)) return 'image/gif';
  if (startsWith(bytes, RIFF) && startsWith(bytes, WEBP, 8)) return 'image/webp';
  return undefined;
}

/**
 * The type of an attachment FROM ITS BYTES; the name (and a declared type) only choose among
 * the text kinds, and refuse text that claims to be something else. The declared type of a
 * data URL or a multipart part is the client's word, never trusted on its own.
 */
export function sniffAttachment(bytes: Uint8Array, name: string, declaredType = ''): Sniffed {
  const image = imageType(bytes);
  if (image) return { kind: 'image', mediaType: image };
  if (startsWith(bytes, PDF)) return { kind: 'pdf', mediaType: PDF_TYPE };
  const ext = extname(name).toLowerCase();
  const declared = declaredType.split(';')[0].trim().toLowerCase();
  // claims a kind that is sniffed by its magic number, yet the bytes have none: a disguise
  const claimsImageOrPdf = IMAGE_OR_PDF_EXTENSIONS.has(ext) || declared.startsWith('image/') || declared === PDF_TYPE;
  if (!isUtf8(bytes) || bytes.includes(0)) return { kind: 'refused', reason: claimsImageOrPdf ? 'spoofed' : 'unsupported' };
  if (claimsImageOrPdf || BINARY_EXTENSIONS.has(ext)) return { kind: 'refused', reason: 'spoofed' };
  if (ext === '') return { kind: 'text', mediaType: 'text/plain' };
  const text = TEXT_BY_EXTENSION[ext];
  return text ? { kind: 'text', mediaType: text } : { kind: 'refused', reason: 'unsupported' };
}

export const isImageType = (mediaType: string): boolean => (IMAGE_TYPES as readonly string[]).includes(mediaType);

/** The kinds of file accepted, as error messages list them. */
export const SUPPORTED_ATTACHMENTS = 'PNG, JPEG, WebP, GIF, PDF, and UTF-8 text (.txt, .md, .html, .json, .csv)';
