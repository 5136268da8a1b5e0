// The same tests as crash.test.ts, tried as many times as it names (see test/helpers/trials.ts).
import './crash.test.js';
