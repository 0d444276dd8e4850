// Short mail references (FQ-7K2M9Q) printed in each reply, so a person can find the row from the mail.
import type { Random } from '../domain/ports';

/** Crockford base32: no I, L, O, U, so a reference read aloud or retyped cannot be misread. */
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const REF_LENGTH = 6;
const MAX_TRIES = 20;

export function newMailRef(random: Random, taken: ReadonlySet<string> = new Set()): string {
  let ref = drawMailRef(random);
  // 32^6 ≈ 10^9 references: a draw taken MAX_TRIES times means a broken Random, and a repeated reference is harmless anyway.
  for (let attempt = 1; attempt < MAX_TRIES && taken.has(ref); attempt++) ref = drawMailRef(random);
  return ref;
}

function drawMailRef(random: Random): string {
  let ref = 'FQ-';
  // The clamp keeps a Random that returns 1 (outside [0, 1)) on the alphabet's last letter.
  for (let i = 0; i < REF_LENGTH; i++) ref += CROCKFORD[Math.min(CROCKFORD.length - 1, Math.floor(random.next() * CROCKFORD.length))];
  return ref;
}
