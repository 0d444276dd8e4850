// The shared shape of every reconciliation: count the evidence found read-only, then act on none, exactly one, or several.

/** none → safe to act (create the missing row); one → the thing exists, nothing to do; many → a person decides. */
export type Evidence = 'none' | 'one' | 'many';

export function evidenceOf(matches: number): Evidence {
  if (matches <= 0) return 'none';
  return matches === 1 ? 'one' : 'many';
}
