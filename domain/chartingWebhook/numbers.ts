// Numbers as people and charting platforms write them in alerts: "0.1", "1,5" (a decimal comma),
// "1.000,50" and "1,000.50" (thousands separators), "2e-1" no (exponents are refused: "1e308" is how
// hostile input looks, no trader writes it). The rule, documented in the README ("Charting webhook"):
//   - with both "." and ",", the one written last is the decimal separator, the other groups thousands
//     (in groups of three digits);
//   - with only ",": one comma is a decimal comma ("1,5" = 1.5); several group thousands ("1,000,000");
//   - with only ".": one dot is a decimal point; several group thousands ("1.000.000");
//   - an optional leading sign; at most 15 significant digits; nothing else (no spaces inside, no NaN,
//     no Infinity, no hex).
// The answer is a finite number, or the reason it is not one.

const MAX_SIGNIFICANT_DIGITS = 15;

export type ParsedNumber = { readonly ok: true; readonly value: number } | { readonly ok: false; readonly reason: string };

const refuse = (text: string, why: string): ParsedNumber => ({ ok: false, reason: `"${text.slice(0, 40)}" is not a number: ${why}` });

const grouped = (integer: string, separator: string): string | null => {
  const groups = integer.split(separator);
  if (groups.length === 1) return integer;
  if (!/^\d{1,3}$/.test(groups[0]!) || groups.slice(1).some((g) => !/^\d{3}$/.test(g))) return null;
  return groups.join('');
};

/** A number as written in an alert (a JSON number passes through the same bounds). */
export const parseAlertNumber = (raw: string | number): ParsedNumber => {
  if (typeof raw === 'number') return Number.isFinite(raw) ? { ok: true, value: raw } : refuse(String(raw), 'not finite');
  const text = raw.trim();
  if (text === '') return refuse(text, 'empty');
  const match = /^([+-]?)([\d.,]+)$/.exec(text);
  if (!match) return refuse(text, 'only digits, one sign, "." and "," are allowed');
  const [, sign, body] = match as unknown as [string, string, string];
  const lastDot = body.lastIndexOf('.');
  const lastComma = body.lastIndexOf(',');
  let integer: string;
  let fraction = '';
  if (lastDot >= 0 && lastComma >= 0) {
    const decimal = lastDot > lastComma ? '.' : ',';
    const thousands = decimal === '.' ? ',' : '.';
    const at = body.lastIndexOf(decimal);
    fraction = body.slice(at + 1);
    const whole = grouped(body.slice(0, at), thousands);
    if (whole === null || body.slice(0, at).includes(decimal)) return refuse(text, `"${thousands}" must group thousands in threes`);
    integer = whole;
  } else {
    const separator = lastDot >= 0 ? '.' : lastComma >= 0 ? ',' : null;
    const count = separator ? body.split(separator).length - 1 : 0;
    if (separator === null) integer = body;
    else if (count === 1) [integer, fraction] = body.split(separator) as [string, string];
    else {
      const whole = grouped(body, separator);
      if (whole === null) return refuse(text, `"${separator}" must group thousands in threes`);
      integer = whole;
    }
  }
  if (!/^\d*$/.test(integer) || !/^\d*$/.test(fraction) || integer + fraction === '') return refuse(text, 'no digits');
  const significant = (integer + fraction).replace(/^0+/, '');
  if (significant.length > MAX_SIGNIFICANT_DIGITS) return refuse(text, `more than ${MAX_SIGNIFICANT_DIGITS} significant digits`);
  const value = Number(`${sign}${integer || '0'}.${fraction || '0'}`);
  return Number.isFinite(value) ? { ok: true, value } : refuse(text, 'not finite');
};
