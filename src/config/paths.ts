import { isAbsolute, join } from 'node:path';
import { UsageError } from '../core/errors.js';

export type Env = Readonly<Record<string, string | undefined>>;

/**
 * PETS_CONFIG_DIR, else $XDG_CONFIG_HOME/pets (empty is unset, as the XDG spec says), else
 * ~/.config/pets. One that is not absolute (HOME empty, say) is refused: pets would keep the
 * key wherever it was run from.
 */
export function configDir(env: Env): string {
  const [variable, value] = env.PETS_CONFIG_DIR
    ? ['PETS_CONFIG_DIR', env.PETS_CONFIG_DIR]
    : env.XDG_CONFIG_HOME
      ? ['XDG_CONFIG_HOME', env.XDG_CONFIG_HOME]
      : ['HOME', env.HOME ?? homeFromSystem()];
  if (isAbsolute(value)) {
    return variable === 'PETS_CONFIG_DIR'
      ? value
      : join(value, variable === 'HOME' ? '.config' : '', 'pets');
  }
  throw new UsageError(
    `${variable} is ${value ? `"${value}", not an absolute path` : 'empty'}, so pets has no folder for its config and rate-limit state`,
    {
      code: 'no_config_folder',
      hint: `Set ${variable} to an absolute path${variable === 'PETS_CONFIG_DIR' ? '' : ', or PETS_CONFIG_DIR to a folder for pets'}.`,
    },
  );
}

/**
 * The home folder when HOME is not set, as node:os tells it. Loaded only then: node:os would
 * slow every run's start-up, and HOME is nearly always there.
 */
function homeFromSystem(): string {
  return process.getBuiltinModule('node:os').homedir();
}
