// The same tests as one-stop.test.ts, tried as many times as it names (see test/helpers/trials.ts).
import './one-stop.test.js';
