// Clock and Random ports: the only place the bundle reads the time or draws random numbers.
import type { Clock, Random } from '../core/ports';

export const systemClock: Clock = { now: () => Date.now() };
export const systemRandom: Random = { next: () => Math.random() };
