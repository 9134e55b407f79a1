import { requestHeaders } from './client';
import { ApiError, errorFrom } from './errors';
import { UNAUTHORIZED_EVENT } from './session';

/**
 * What `url` answers, fetched with the key: an <img src> or a link cannot send the
 * Authorization header, so the page shows and downloads the API's files from blob: URLs.
 */
export async function fetchBlob(url: string, signal?: AbortSignal): Promise<Blob> {
  let response: Response;
  try {
    response = await fetch(url, { headers: requestHeaders(), signal });
  } catch (error) {
    throw new ApiError(0, error instanceof Error ? error.message : String(error));
  }
  if (response.status === 401) window.dispatchEvent(new Event(UNAUTHORIZED_EVENT));
  if (!response.ok) throw errorFrom(response.status, await response.json().catch(() => null), response.statusText);
  return response.blob();
}

/** Hands `blob` to the browser as a download named `name`. */
export function saveBlob(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  // revoked a little later: a download started by the click may still be reading the URL
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** Saves what `url` answers as a file named `name`. */
export async function download(url: string, name: string): Promise<void> {
  saveBlob(await fetchBlob(url), name);
}
