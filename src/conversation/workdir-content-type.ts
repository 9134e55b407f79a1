/** Content types of the working directory's downloads, by extension (the bytes are not sniffed: it is always an attachment). */
const TYPES: Readonly<Record<string, string>> = {
  txt: 'text/plain', md: 'text/markdown', csv: 'text/csv', tsv: 'text/tab-separated-values', log: 'text/plain',
  html: 'text/html', htm: 'text/html', css: 'text/css', xml: 'application/xml', svg: 'image/svg+xml',
  json: 'application/json', yaml: 'application/yaml', yml: 'application/yaml', toml: 'application/toml',
  js: 'text/javascript', mjs: 'text/javascript', ts: 'text/plain', py: 'text/x-python', sh: 'text/x-shellscript', sql: 'application/sql',
  png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp', pdf: 'application/pdf',
  zip: 'application/zip', gz: 'application/gzip', tar: 'application/x-tar',
};

const TEXTUAL = /^text\/|^application\/(json|xml|yaml|toml|sql)$|^image\/svg\+xml$/;

export function contentTypeOf(name: string): string {
  const dot = name.lastIndexOf('.');
  const type = (dot > 0 && TYPES[name.slice(dot + 1).toLowerCase()]) || 'application/octet-stream';
  return TEXTUAL.test(type) ? `${type}; charset=utf-8` : type;
}
