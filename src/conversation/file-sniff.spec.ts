import { sniffAttachment } from './file-sniff';

const bytes = (...values: Array<number | string>) =>
  Buffer.concat(values.map((v) => (typeof v === 'string' ? Buffer.from(v, 'latin1') : Buffer.from([v]))));
const PNG = bytes(0x89, 'PNG\r\n\x1a\n', 0, 0, 0, 13, 'IHDR');
const JPEG = bytes(0xff, 0xd8, 0xff, 0xe0, 0, 16, 'JFIF');
const GIF = bytes('GIF89a', 1, 0, 1, 0);
const WEBP = bytes('RIFF', 0x24, 0, 0, 0, 'WEBPVP8 ');
const PDF = bytes('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n');
const ZIP = bytes('PK', 3, 4, 20, 0, 0, 0);
const EXE = bytes('MZ', 0x90, 0, 3, 0, 0, 0);
const TEXT = Buffer.from('# Notes\n\nhello, 世界\n');

describe('sniffAttachment: the type comes from the bytes', () => {
  it.each([
    ['photo.png', PNG, 'image/png'],
    ['photo.jpg', JPEG, 'image/jpeg'],
    ['anim.gif', GIF, 'image/gif'],
    ['pic.webp', WEBP, 'image/webp'],
    ['paper.pdf', PDF, 'application/pdf'],
    // whatever the name says: the bytes are an image
    ['named-wrong.txt', PNG, 'image/png'],
    ['no-extension', JPEG, 'image/jpeg'],
  ])('%s is %s', (name, data, mediaType) => {
    expect(sniffAttachment(data, name)).toMatchObject({ mediaType });
  });

  it.each([
    ['notes.md', 'text/markdown'],
    ['notes.markdown', 'text/markdown'],
    ['notes.txt', 'text/plain'],
    ['README', 'text/plain'],
    ['page.html', 'text/html'],
    ['data.json', 'application/json'],
    ['table.CSV', 'text/csv'],
  ])('UTF-8 text named %s is %s', (name, mediaType) => {
    expect(sniffAttachment(TEXT, name)).toEqual({ kind: 'text', mediaType });
  });

  it('refuses text that claims to be an image or a PDF (spoofed), by its name or its declared type', () => {
    expect(sniffAttachment(TEXT, 'x.png')).toEqual({ kind: 'refused', reason: 'spoofed' });
    expect(sniffAttachment(TEXT, 'x.pdf')).toEqual({ kind: 'refused', reason: 'spoofed' });
    expect(sniffAttachment(TEXT, 'notes.txt', 'image/png')).toEqual({ kind: 'refused', reason: 'spoofed' });
    expect(sniffAttachment(Buffer.from('<script>alert(1)</script>'), 'cat.jpg')).toEqual({ kind: 'refused', reason: 'spoofed' });
  });

  it('refuses binaries that are none of the kinds: zip, exe, bytes with NUL or invalid UTF-8', () => {
    expect(sniffAttachment(ZIP, 'archive.zip')).toMatchObject({ kind: 'refused' });
    expect(sniffAttachment(ZIP, 'notes.txt')).toEqual({ kind: 'refused', reason: 'unsupported' });
    expect(sniffAttachment(EXE, 'setup.exe')).toMatchObject({ kind: 'refused' });
    expect(sniffAttachment(EXE, 'image.png')).toEqual({ kind: 'refused', reason: 'spoofed' });
    expect(sniffAttachment(bytes('abc', 0, 'def'), 'a.txt')).toEqual({ kind: 'refused', reason: 'unsupported' });
    expect(sniffAttachment(bytes(0xc3, 0x28), 'a.txt')).toEqual({ kind: 'refused', reason: 'unsupported' });
  });

  it('refuses text under an extension that is none of the text kinds, and a truncated magic number', () => {
    expect(sniffAttachment(TEXT, 'script.sh')).toEqual({ kind: 'refused', reason: 'unsupported' });
    expect(sniffAttachment(bytes(0x89, 'PN'), 'tiny.png')).toMatchObject({ kind: 'refused' });
    expect(sniffAttachment(bytes('RIFF', 0, 0, 0, 0, 'WAVE'), 'sound.webp')).toMatchObject({ kind: 'refused' });
  });
});
