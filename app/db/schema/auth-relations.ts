import { relations } from "drizzle-orm";
import { account, session, user } from "./auth";

// Drizzle relations let better-auth's adapter read a session together with its user in one
// statement (a relational query) instead of two; every request that carries a cookie pays it.
export const userRelations = relations(user, ({ many }) => ({
  sessions: many(session),
  accounts: many(account),
}));

export const sessionRelations = relations(session, ({ one }) => ({
  user: one(user, { fields: [session.userId], references: [user.id] }),
}));

export const accountRelations = relations(account, ({ one }) => ({
  user: one(user, { fields: [account.userId], references: [user.id] }),
}));
