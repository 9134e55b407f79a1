import { isHostPattern } from './host-pattern';

describe('httpFetchAllowedHosts entries', () => {
  it.each(['wiki.corp', 'WIKI.Corp:8080', '*.corp.example', '127.0.0.1', '127.0.0.1:9000', '[::1]', '[::1]:9000', 'localhost'])('accepts %s', (entry) => {
    expect(isHostPattern(entry)).toBe(true);
  });

  it.each(['', 'http://wiki.corp', 'wiki.corp/path', 'a b', '*', '*.', 'corp.*', '-bad.example', 'user@host', 'host:port', ['x'], 7])('refuses %p', (entry) => {
    expect(isHostPattern(entry)).toBe(false);
  });
});
