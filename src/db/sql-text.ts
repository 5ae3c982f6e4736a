/**
 * Query text whose parameters are named where they stand: `${param('from')}` becomes `?`, and the
 * positional bindings follow from the text, so a condition added anywhere cannot shift them (they
 * were counted by hand, ten in a row). Interpolated strings are constant fragments (column names,
 * casts); a nested Sql brings its parameters with it.
 */
export interface Sql {
  readonly text: string;
  /** The parameter of each `?` in text, in order. */
  readonly params: readonly string[];
}

/** A named parameter, for the sql tag. */
export interface Param {
  readonly param: string;
}

export const param = (name: string): Param => ({ param: name });

type Part = Sql | Param | string;

const isSql = (p: Part): p is Sql => typeof p === 'object' && 'text' in p;

export function sql(strings: TemplateStringsArray, ...parts: Part[]): Sql {
  const params: string[] = [];
  let text = constant(strings[0]);
  parts.forEach((p, i) => {
    if (typeof p === 'string') text += constant(p);
    else if (isSql(p)) {
      text += p.text;
      params.push(...p.params);
    } else {
      text += '?';
      params.push(p.param);
    }
    text += constant(strings[i + 1]);
  });
  return { text, params };
}

/** A `?` in constant text would be a binding no name stands for. */
function constant(text: string): string {
  if (text.includes('?')) throw new Error(`a "?" in constant SQL text: name the parameter with param() (${text.trim().slice(0, 60)})`);
  return text;
}

/**
 * The positional bindings of q from values by name. A parameter without a value, or a value no
 * parameter takes, is an error: a misspelt name never runs as a query.
 */
export function bindingsOf(q: Sql, values: Readonly<Record<string, string>>): string[] {
  const unused = Object.keys(values).filter((k) => !q.params.includes(k));
  if (unused.length) throw new Error(`no parameter named ${unused.join(', ')} in this query`);
  return q.params.map((name) => {
    if (!Object.hasOwn(values, name)) throw new Error(`no value for the query's parameter ${name}`);
    return values[name];
  });
}
