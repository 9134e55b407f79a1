import { readWorkspaceSettings } from '../conversation/conversation.records';
import { isHostPattern, MAX_ALLOWED_HOSTS } from './host-pattern';

describe('httpFetchAllowedHosts entries', () => {
  it.each(['wiki.corp', 'WIKI.Corp:8080', '*.corp.example', '127.0.0.1', '127.0.0.1:9000', '[::1]', '[::1]:9000', 'localhost'])('accepts %s', (entry) => {
    expect(isHostPattern(entry)).toBe(true);
  });

  it.each(['', 'http://wiki.corp', 'wiki.corp/path', 'a b', '*', '*.', 'corp.*', '-bad.example', 'user@host', 'host:port', ['x'], 7])('refuses %p', (entry) => {
    expect(isHostPattern(entry)).toBe(false);
  });

  it('the stored setting keeps valid entries only, at most 100', () => {
    expect(readWorkspaceSettings({ httpFetchAllowedHosts: ['ok.example', 'http://bad', 3, '*.corp'] }).httpFetchAllowedHosts).toEqual(['ok.example', '*.corp']);
    expect(readWorkspaceSettings({ httpFetchAllowedHosts: 'ok.example' }).httpFetchAllowedHosts).toBeUndefined();
    const many = Array.from({ length: 150 }, (_, i) => `h${i}.example`);
    expect(readWorkspaceSettings({ httpFetchAllowedHosts: many }).httpFetchAllowedHosts).toHaveLength(MAX_ALLOWED_HOSTS);
  });
});
