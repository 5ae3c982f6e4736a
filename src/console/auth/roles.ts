import type { Role } from '../../db/console-users.ts';

/** What a role may do. viewer reads and downloads; finance also works cases and reruns days; admin also manages users. */
export type Permission = 'read' | 'work-cases' | 'rerun' | 'manage-users';

const GRANTS: Record<Role, readonly Permission[]> = {
  viewer: ['read'],
  finance: ['read', 'work-cases', 'rerun'],
  admin: ['read', 'work-cases', 'rerun', 'manage-users'],
};

export function can(role: Role, permission: Permission): boolean {
  return GRANTS[role].includes(permission);
}
