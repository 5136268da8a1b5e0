// The same tests as skewed-processes-simulation.test.ts, tried as many times as it names (see test/helpers/trials.ts).
import './skewed-processes-simulation.test.js';
