import type { ServerResponse } from 'node:http';
import { AMOUNT_KEYS } from '../provider/json.ts';

/** JSON text written verbatim (used by faults that send a field with the wrong type). */
export class RawJson {
  constructor(readonly text: string) {}
}

const DECIMAL = /^-?\d+(\.\d+)?$/;

/**
 * Serialises a response value by hand: amount keys holding decimal text become JSON numbers with exactly
 * that text, so no amount ever passes through a JavaScript number.
 */
export function toJsonText(value: unknown, key = ''): string {
  if (value instanceof RawJson) return value.text;
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return AMOUNT_KEYS.has(key) && DECIMAL.test(value) ? value : JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map((v) => toJsonText(v)).join(',')}]`;
  if (typeof value === 'object') {
    const parts: string[] = [];
    for (const [k, v] of Object.entries(value)) {
      if (v !== undefined) parts.push(`${JSON.stringify(k)}:${toJsonText(v, k)}`);
    }
    return `{${parts.join(',')}}`;
  }
  return JSON.stringify(value);
}

/** The spec's envelope. Errors keep the same shape with data null. */
export function envelopeText(code: string, message: string, data: unknown): string {
  return `{"code":${JSON.stringify(code)},"message":${JSON.stringify(message)},"data":${toJsonText(data)}}`;
}

export function sendText(
  res: ServerResponse,
  status: number,
  contentType: string,
  body: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(body), ...headers });
  res.end(body);
}

export function sendJson(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  sendText(res, status, 'application/json', body, headers);
}

/** Error bodies for HTTP-level failures: `{code, message}` with code the HTTP status as text. */
export function sendError(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  sendJson(res, status, `{"code":${JSON.stringify(String(status))},"message":${JSON.stringify(message)}}`, headers);
}
