// The same tests as simulation.test.ts, tried as many times as it names (see test/helpers/trials.ts).
import './simulation.test.js';
