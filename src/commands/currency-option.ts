import { InvalidArgumentError, Option } from 'commander';
import { CURRENCIES, type Currency } from '../money/decimal.ts';

/** A currency on the command line: any case, normalized to upper case, as `import` does for the CSV column. */
export function parseCurrencyArg(value: string): Currency {
  const code = value.trim().toUpperCase();
  if (!(CURRENCIES as readonly string[]).includes(code))
    throw new InvalidArgumentError(`expected one of ${CURRENCIES.join(', ')} (any case; got ${JSON.stringify(value)}).`);
  return code as Currency;
}

/** `--currency <code>`: the list in --help, checked by parseCurrencyArg (a custom parser replaces commander's choices check). */
export const currencyOption = (description: string): Option =>
  new Option('--currency <code>', description).choices([...CURRENCIES]).argParser(parseCurrencyArg);
