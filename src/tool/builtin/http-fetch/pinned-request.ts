import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import type { Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { Target } from '../../../common';

const HEADERS = {
  'user-agent': 'Helix-http_fetch/1.0',
  accept: 'text/html,application/xhtml+xml,application/json;q=0.9,text/*;q=0.8,*/*;q=0.5',
  'accept-encoding': 'gzip, deflate, br',
};

/**
 * A GET of `url` connected to `target`, the address already checked: the socket's lookup answers
 * with it instead of asking DNS again, so a name cannot resolve to a public address for the check
 * and a private one for the connection (DNS rebinding). The Host header, TLS SNI and certificate
 * check still use the URL's host name. No agent: a pooled socket must not outlive its check.
 */
/** @param traceparent the W3C trace context to send along (the tool call's span, when traces are exported) */
export function openPinned(url: URL, target: Target, signal: AbortSignal, traceparent?: string): Promise<IncomingMessage> {
  const lookup: LookupFunction = (_hostname, options, callback) => {
    // with autoSelectFamily, net asks for every address at once
    if (options.all) callback(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  };
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: 'GET', headers: traceparent ? { ...HEADERS, traceparent } : HEADERS, lookup, agent: false, signal, auth: undefined },
      resolve,
    );
    req.on('error', reject);
    req.end();
  });
}

export interface Body {
  bytes: Buffer;
  /** the (decoded) body was longer than the limit: reading stopped there */
  truncated: boolean;
}

/** Reads at most `maxBytes` of the body, decompressed (the limit counts what decompression yields). */
export function readBody(response: IncomingMessage, maxBytes: number): Promise<Body> {
  const encoding = String(response.headers['content-encoding'] ?? '').trim().toLowerCase();
  const decoder = encoding === 'gzip' || encoding === 'x-gzip' ? createGunzip()
    : encoding === 'deflate' ? createInflate()
    : encoding === 'br' ? createBrotliDecompress()
    : undefined;
  const stream: Readable = decoder ? response.pipe(decoder) : response;
  if (decoder) response.on('error', (error) => decoder.destroy(error));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const finish = (truncated: boolean) => {
      if (settled) return;
      settled = true;
      stream.removeAllListeners('data');
      resolve({ bytes: Buffer.concat(chunks, Math.min(size, maxBytes)), truncated });
    };
    const fail = (error: Error) => {
      if (settled) return;
      settled = true;
      reject(error);
    };
    stream.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size > maxBytes) {
        // enough: stop reading and drop the connection rather than download the rest
        finish(true);
        response.destroy();
        decoder?.destroy();
      }
    });
    stream.on('end', () => finish(false));
    stream.on('error', fail);
    // a stream destroyed without an error (abort, reset) would otherwise leave the read pending
    stream.on('close', () => fail(new Error('the connection closed before the body was complete')));
  });
}

/** Drops a response whose body is not wanted (a redirect, a refused content type). */
export function discard(response: IncomingMessage): void {
  response.destroy();
}
