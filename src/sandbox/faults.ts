import type { ServerResponse } from 'node:http';
import { rng } from './prng.ts';
import type { Operation } from '../provider/types.ts';
import { isPlainObject } from './request-json.ts';
import { RawJson } from './response-json.ts';
import { FAULT_KINDS, type FaultSpec } from './types.ts';

interface Active {
  id: string;
  spec: FaultSpec;
  remaining: number;
  /** Seeded draws in [0, 1) for a fault with a probability. */
  draw?: () => number;
}

export interface FaultMatch {
  /** Global latency plus every matching latency fault. */
  latencyMs: number;
  /** The first matching non-latency fault, if any. */
  fault?: FaultSpec;
}

/** Injected failures for provider requests, matched by operation, transactionRef and currency, optionally for N requests. */
export class FaultRegistry {
  private active: Active[] = [];
  private nextId = 1;
  globalLatencyMs = 0;
  applied = 0;

  add(spec: FaultSpec): string {
    if (!(FAULT_KINDS as readonly string[]).includes(spec.kind))
      throw new Error(`unknown fault kind "${spec.kind}"; expected one of ${FAULT_KINDS.join(', ')}`);
    if (spec.count !== undefined && !(Number.isInteger(spec.count) && spec.count > 0)) throw new Error('count must be a positive integer');
    if (spec.probability !== undefined && !(typeof spec.probability === 'number' && spec.probability > 0 && spec.probability <= 1)) {
      throw new Error('probability must be a number in (0, 1]');
    }
    const n = this.nextId++;
    const id = `fault-${n}`;
    const draw = spec.probability === undefined ? undefined : rng(n);
    this.active.push({ id, spec, remaining: spec.count ?? Infinity, draw });
    return id;
  }

  remove(id: string): boolean {
    const before = this.active.length;
    this.active = this.active.filter((a) => a.id !== id);
    return this.active.length !== before;
  }

  clear(): void {
    this.active = [];
  }

  list(): Array<{ id: string; remaining: number | null } & FaultSpec> {
    return this.active.map((a) => ({ id: a.id, remaining: Number.isFinite(a.remaining) ? a.remaining : null, ...a.spec }));
  }

  /** Consumes one use of each fault that applies to this request. */
  match(op: Operation, body: unknown): FaultMatch {
    const out: FaultMatch = { latencyMs: this.globalLatencyMs };
    if (this.active.length === 0) return out;
    const refs = isPlainObject(body) ? [body.transactionRef, body.merchantRef].filter((v): v is string => typeof v === 'string') : [];
    for (const a of this.active) {
      const s = a.spec;
      if (s.operations && !s.operations.includes(op)) continue;
      if (s.transactionRefs && !refs.some((r) => s.transactionRefs!.includes(r))) continue;
      if (s.currencies && !(isPlainObject(body) && typeof body.currency === 'string' && s.currencies.includes(body.currency))) continue;
      if (a.draw && a.draw() >= s.probability!) continue;
      if (s.kind === 'latency') out.latencyMs += s.latencyMs ?? 1000;
      else if (out.fault) continue;
      else out.fault = s;
      a.remaining--;
      this.applied++;
    }
    this.active = this.active.filter((a) => a.remaining > 0);
    return out;
  }
}

/** Faults answered instead of the operation (unless afterProcessing asks to run it first). */
export const PRE_FAULTS = new Set(['status500', 'status429', 'timeout', 'reset', 'htmlError', 'status401', 'status403']);

/** Rewrites a successful answer's data for the data-level faults. */
export function corruptData(spec: FaultSpec, data: Record<string, unknown>): Record<string, unknown> {
  const d = { ...data };
  switch (spec.kind) {
    case 'unknownStatus':
      d.status = spec.statusText ?? 'Settling';
      break;
    case 'missingField':
      delete d[spec.field ?? 'status'];
      break;
    case 'wrongFieldType': {
      const field = spec.field ?? 'amount';
      const v = d[field];
      // Numbers become quoted strings, strings become a number: both break a strict parser.
      d[field] = typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v) ? new RawJson(JSON.stringify(v)) : new RawJson('12345');
      break;
    }
    default:
      break;
  }
  return d;
}

const HUGE_CHUNK = Buffer.alloc(64 * 1024, 'x');

/** Streams a valid but enormous envelope (chunked, with backpressure) to test clients' body size limits. */
export function streamHugeBody(res: ServerResponse, bytes: number): void {
  const head = '{"code":"200","message":"SUCCESS","data":{"padding":"';
  res.writeHead(200, { 'content-type': 'application/json' });
  res.write(head);
  let left = Math.max(0, bytes - head.length - 3);
  const pump = (): void => {
    while (left > 0) {
      const chunk = left >= HUGE_CHUNK.length ? HUGE_CHUNK : HUGE_CHUNK.subarray(0, left);
      left -= chunk.length;
      if (!res.write(chunk)) {
        res.once('drain', pump);
        return;
      }
    }
    res.end('"}}');
  };
  res.on('close', () => {
    left = 0;
  });
  pump();
}

export const HTML_ERROR_PAGE =
  '<!DOCTYPE html>\n<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>\n';
