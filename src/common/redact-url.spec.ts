import { redactQuery, redactUrl } from './redact-url';

describe('redactUrl', () => {
  it.each([
    ['/api/v1/runs/r1/events?token=abc.def.ghi', '/api/v1/runs/r1/events?token=[redacted]'],
    ['/x?after=3&token=abc&limit=2', '/x?after=3&token=[redacted]&limit=2'],
    ['/x?TOKEN=abc', '/x?TOKEN=[redacted]'],
    ['/x?%74oken=abc', '/x?%74oken=[redacted]'],
    ['/x?api_key=hx_1&key=k&access_token=t&apikey=a', '/x?api_key=[redacted]&key=[redacted]&access_token=[redacted]&apikey=[redacted]'],
    ['/x?token', '/x?token=[redacted]'],
    ['/x?token=a&token=b', '/x?token=[redacted]&token=[redacted]'],
    ['/x?tokens=keep&monkey=keep', '/x?tokens=keep&monkey=keep'],
    ['/x?%E0%A4%A=bad&token=s', '/x?%E0%A4%A=bad&token=[redacted]'],
    ['/x?token=s#frag', '/x?token=[redacted]'],
    ['/plain', '/plain'],
  ])('%s → %s', (url, expected) => {
    expect(redactUrl(url)).toBe(expected);
  });

  it('keeps the path alone when asked to drop the query', () => {
    expect(redactUrl('/api/v1/nope?token=secret&after=1', { withQuery: false })).toBe('/api/v1/nope');
    expect(redactUrl('/api/v1/nope', { withQuery: false })).toBe('/api/v1/nope');
  });
});

describe('redactQuery', () => {
  it('redacts the values of credential parameters of a parsed query, and only those', () => {
    expect(redactQuery({ token: 'a', Access_Token: 'b', after: '3', key: ['c', 'd'], keys: 'keep' })).toEqual({
      token: '[redacted]',
      Access_Token: '[redacted]',
      after: '3',
      key: '[redacted]',
      keys: 'keep',
    });
  });
});
