// The same tests as sharing-simulation.test.ts, tried as many times as it names (see test/helpers/trials.ts).
import './sharing-simulation.test.js';
