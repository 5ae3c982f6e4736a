/** Deterministic hashing and pseudo-random draws: the same seed and inputs give the same orders and outcomes. */

/** FNV-1a with a murmur3 finaliser: fast, well-mixed 32-bit hash of a string. */
export function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return mix32(h);
}

export function mix32(value: number): number {
  let h = value | 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** A seeded generator of uniform draws in [0, 1) (mulberry32). */
export type Rng = () => number;

export function rng(seed: number): Rng {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const u32 = (r: Rng): number => Math.floor(r() * 4294967296) >>> 0;

/** Integer in [min, max] inclusive. */
export const intBetween = (r: Rng, min: number, max: number): number => min + Math.floor(r() * (max - min + 1));

export const hex = (n: number, width: number): string =>
  (n >>> 0)
    .toString(16)
    .padStart(8, '0')
    .slice(8 - width);

/** Version-4-shaped UUID text from 32 hex digits (version and variant nibbles forced). */
export function uuidFromHex(h: string): string {
  const variant = ((parseInt(h[16], 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

export function uuidFrom(r: Rng): string {
  return uuidFromHex(hex(u32(r), 8) + hex(u32(r), 8) + hex(u32(r), 8) + hex(u32(r), 8));
}
