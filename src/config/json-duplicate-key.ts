/** A key written twice in one JSON object: JSON.parse keeps the last silently, so a typo'd copy wins unseen. */
export interface DuplicateKey {
  /** The object's path, keys joined with "." ("" for the top level). */
  path: string;
  key: string;
  firstLine: number;
  secondLine: number;
}

type Frame =
  { kind: 'object'; keys: Map<string, number>; path: string; expectKey: boolean; lastKey: string } | { kind: 'array'; path: string };

/**
 * The first duplicate key of well-formed JSON text, with the lines of both, or null. Only tracks what
 * it needs (strings, nesting, commas); a text JSON.parse refuses is reported by JSON.parse instead.
 */
export function findDuplicateKey(text: string): DuplicateKey | null {
  const stack: Frame[] = [];
  let line = 1;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '\n') line++;
    else if (ch === '"') {
      let j = i + 1;
      let s = '';
      for (; j < text.length && text[j] !== '"'; j++) {
        if (text[j] === '\\') j++;
        s += text[j];
      }
      const top = stack.at(-1);
      if (top?.kind === 'object' && top.expectKey) {
        const key = unescape(text.slice(i + 1, j)) ?? s;
        const first = top.keys.get(key);
        if (first !== undefined) return { path: top.path, key, firstLine: first, secondLine: line };
        top.keys.set(key, line);
        top.lastKey = key;
        top.expectKey = false;
      }
      i = j;
    } else if (ch === '{' || ch === '[') {
      const top = stack.at(-1);
      const at = top?.kind === 'object' ? join(top.path, top.lastKey) : (top?.path ?? '');
      stack.push(ch === '{' ? { kind: 'object', keys: new Map(), path: at, expectKey: true, lastKey: '' } : { kind: 'array', path: at });
    } else if (ch === '}' || ch === ']') stack.pop();
    else if (ch === ',') {
      const top = stack.at(-1);
      if (top?.kind === 'object') top.expectKey = true;
    }
  }
  return null;
}

const join = (path: string, key: string) => (path ? `${path}.${key}` : key);

/** A JSON string's body as JSON.parse reads it (so "wa\u006cet" and "wallet" are one key). */
function unescape(body: string): string | undefined {
  try {
    return JSON.parse(`"${body}"`) as string;
  } catch {
    return undefined;
  }
}
