/**
 * The query builder's types, for modules outside src/db that pass a database handle or a transaction
 * on to repositories (`tx: Knex.Transaction`). Only src/db imports knex itself (the dependency rule
 * only-db-imports-knex): queries live in repositories.
 */
export type { Knex } from 'knex';
