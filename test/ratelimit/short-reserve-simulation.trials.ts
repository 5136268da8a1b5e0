// The same tests as short-reserve-simulation.test.ts, tried as many times as it names (see test/helpers/trials.ts).
import './short-reserve-simulation.test.js';
