/** The console's roles, stored on each user (console_users.role). */
export const ROLES = ['viewer', 'finance', 'admin'] as const;
export type Role = (typeof ROLES)[number];

/** What a role may do. viewer reads and downloads; finance also works cases and reruns days; admin also manages users. */
export type Permission = 'read' | 'work-cases' | 'rerun' | 'manage-users';

const GRANTS: Record<Role, readonly Permission[]> = {
  viewer: ['read'],
  finance: ['read', 'work-cases', 'rerun'],
  admin: ['read', 'work-cases', 'rerun', 'manage-users'],
};

/** Whether a role may do something: the console's routes and pages ask, and so does case work (who may be assigned). */
export function can(role: Role, permission: Permission): boolean {
  return GRANTS[role].includes(permission);
}
