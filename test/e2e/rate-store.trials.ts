// The same tests as rate-store.test.ts, tried as many times as it names (see test/helpers/trials.ts).
import './rate-store.test.js';
