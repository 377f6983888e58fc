/**
 * Classic catastrophic-backtracking shapes, each with an input that makes a backtracking
 * engine run for seconds to hours. Patterns a linear-time engine can run must be answered
 * quickly; those it cannot (backreferences, lookarounds) must be refused with
 * `invalid_tool_schema`. Never in the corpus: anything that needs the network.
 */
export interface RedosCase {
  name: string;
  pattern: string;
  /** A string that makes a backtracking engine explode on `pattern`. */
  attack: string;
  /** Whether a linear-time engine can run it (else the handler refuses it). */
  linear: boolean;
}

const letters = (count: number) => 'a'.repeat(count);

export const redosCorpus: RedosCase[] = [
  { name: 'adjacent stars (the freezing request)', pattern: '^[a-z]*[a-z]*[a-z]*[a-z]*!$', attack: letters(4000), linear: true },
  { name: 'nested plus', pattern: '^(a+)+$', attack: `${letters(40)}!`, linear: true },
  { name: 'nested star', pattern: '^(a*)*$', attack: `${letters(40)}!`, linear: true },
  { name: 'alternation of equals', pattern: '^(a|a)*$', attack: `${letters(40)}!`, linear: true },
  { name: 'overlapping alternation', pattern: '^(a|aa)+$', attack: `${letters(60)}!`, linear: true },
  { name: 'alternation with a class', pattern: '^([a-z]|a)+$', attack: `${letters(40)}!`, linear: true },
  { name: 'words and spaces', pattern: '^(\\w+\\s?)*$', attack: `${'word '.repeat(30)}!`, linear: true },
  { name: 'email-like', pattern: '^([a-zA-Z0-9])(([\\-.]|[_]+)?([a-zA-Z0-9]+))*(@){1}[a-z0-9]+[.]{1}(([a-z]{2,3})|([a-z]{2,3}[.]{1}[a-z]{2,3}))$', attack: `${letters(40)}!`, linear: true },
  { name: 'dot star chains', pattern: '.*.*.*.*.*=.*x', attack: '='.repeat(3000), linear: true },
  { name: 'bounded repeat of a star', pattern: '^(a{1,10}){1,10}$', attack: `${letters(100)}!`, linear: true },
  { name: 'quantified digits', pattern: '^(\\d+)*$', attack: `${'1'.repeat(40)}x`, linear: true },
  { name: 'unicode letters nested', pattern: '^(\\p{L}+)+$', attack: `${'é'.repeat(40)}!`, linear: true },
  { name: 'backreference', pattern: '^(a+)\\1*$', attack: `${letters(40)}!`, linear: false },
  { name: 'named backreference', pattern: '^(?<x>a+)\\k<x>+$', attack: `${letters(40)}!`, linear: false },
  { name: 'lookahead', pattern: '^(?=(a+)+$)a', attack: `${letters(40)}!`, linear: false },
  { name: 'negative lookahead', pattern: '^(?!(a|a)*$).*', attack: `${letters(40)}!`, linear: false },
  { name: 'lookbehind', pattern: '(?<=(a+)+)b', attack: `${letters(40)}!`, linear: false },
  { name: 'huge repeat count', pattern: '^(a{1000}){1000}$', attack: letters(1000), linear: false },
];
