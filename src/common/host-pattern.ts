/**
 * An entry of the workspace setting `httpFetchAllowedHosts`: a host name (optionally `*.` for any
 * subdomain), an IPv4 literal or a bracketed IPv6 literal, optionally with `:port`. Kept here, not
 * in the tool, because the settings reader and the GraphQL input validate entries with it too.
 */
export const HOST_PATTERN =
  /^(?:(?:\*\.)?(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*|\[[0-9a-f:.]{2,45}\])(?::\d{1,5})?$/i;
export const MAX_HOST_PATTERN_LENGTH = 260;
export const MAX_ALLOWED_HOSTS = 100;

export const isHostPattern = (value: unknown): value is string =>
  typeof value === 'string' && value.length <= MAX_HOST_PATTERN_LENGTH && HOST_PATTERN.test(value);
