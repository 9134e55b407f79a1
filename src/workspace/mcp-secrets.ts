import { SECRET_REF, type McpServerConfig } from './mcp-config';

/** A value Helix encrypted when it was configured: `enc:<AES-256-GCM ciphertext, base64>`. */
export const SEALED_VALUE = /^enc:(.+)$/;

/**
 * The server with each literal env and header value encrypted (SecretService.encrypt): they may be
 * credentials, and the settings column, its version history and the audit log then hold only
 * ciphertext. `secret:<NAME>` references stay as they are (the secret is stored encrypted already).
 */
export function sealMcpServer(server: McpServerConfig, encrypt: (plain: string) => string): McpServerConfig {
  const seal = (map?: Record<string, string>) =>
    map && Object.fromEntries(Object.entries(map).map(([key, value]) => [key, SECRET_REF.test(value) || SEALED_VALUE.test(value) ? value : `enc:${encrypt(value)}`]));
  return { ...server, ...(server.env && { env: seal(server.env) }), ...(server.headers && { headers: seal(server.headers) }) };
}

/** A stored value in plain text again (not a `secret:` reference: that is read elsewhere). */
export function openMcpValue(value: string, decrypt: (ciphertext: string) => string): string {
  const sealed = SEALED_VALUE.exec(value);
  return sealed ? decrypt(sealed[1]) : value;
}
