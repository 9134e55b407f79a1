/**
 * The caller's credentials and language, read by every request. The API key lives in
 * sessionStorage: it survives a reload of this tab and is gone when the tab closes.
 */
const KEY_STORAGE = 'helix.apiKey';
let language: 'en' | 'zh' = 'en';

export const session = {
  apiKey: (): string | null => sessionStorage.getItem(KEY_STORAGE),
  setApiKey(key: string | null): void {
    if (key) sessionStorage.setItem(KEY_STORAGE, key);
    else sessionStorage.removeItem(KEY_STORAGE);
  },
  language: () => language,
  setLanguage(next: 'en' | 'zh'): void {
    language = next;
  },
};

/** Fired on a 401: the page asks for a key again. */
export const UNAUTHORIZED_EVENT = 'helix:unauthorized';
