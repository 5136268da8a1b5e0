// The same tests as skewed-clocks.test.ts, tried as many times as it names (see test/helpers/trials.ts).
import './skewed-clocks.test.js';
