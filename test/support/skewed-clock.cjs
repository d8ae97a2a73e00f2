// Preload (`NODE_OPTIONS=--require …`): runs the process's wall clock CLOCK_SKEW_MS off the machine's (negative: behind),
// the clock skew between replicas the platform must survive. Only "now" moves: `new Date()`, `Date()` and `Date.now()`.
'use strict';
const skew = Number(process.env.CLOCK_SKEW_MS ?? 0);
const RealDate = Date;
const realNow = RealDate.now.bind(RealDate);
const now = () => realNow() + skew;
// A proxy rather than a subclass: `instanceof Date`, `Date.prototype` and the static methods stay the real ones, which
// drivers (pg's parameter serialisation) and libraries check.
globalThis.Date = new Proxy(RealDate, {
  construct: (target, args, newTarget) => Reflect.construct(target, args.length === 0 ? [now()] : args, newTarget),
  apply: () => new RealDate(now()).toString(),
  get: (target, key, receiver) => (key === 'now' ? now : Reflect.get(target, key, receiver)),
});
