import type { FunctionComponent } from 'preact';
import type { Scope } from '#shared/domain/identity/staff-roles.ts';
import { ActivityPage } from './activity-page.tsx';
import { ReportsPage } from './reports-page.tsx';
import { SandboxPage } from './sandbox-page.tsx';
import { TokensPage } from './tokens-page.tsx';
import { UsersPage } from './users-page.tsx';
import { VerifyReportPage } from './verify-report-page.tsx';
import { WebhooksPage } from './webhooks-page.tsx';

/**
 * The dashboard's pages, in navigation order. A page is one entry here (its path after `#/`, its
 * label, the scope without which the navigation does not offer it, whether it is the sandbox's alone).
 */
export interface DashboardPage {
  path: string;
  label: string;
  scope: Scope;
  /** Offered only while the dashboard shows the sandbox (its routes are 404 for a live token). */
  sandboxOnly?: boolean;
  component: FunctionComponent;
}

export const dashboardPages: readonly DashboardPage[] = [
  { path: 'tokens', label: 'Onboarding tokens', scope: 'onboarding:read', component: TokensPage },
  { path: 'reports', label: 'Reports', scope: 'reports:read', component: ReportsPage },
  { path: 'verify', label: 'Verify a report', scope: 'reports:read', component: VerifyReportPage },
  { path: 'users', label: 'Users', scope: 'users:read', component: UsersPage },
  { path: 'webhooks', label: 'Webhooks', scope: 'webhooks:manage', component: WebhooksPage },
  { path: 'activity', label: 'Activity', scope: 'audit:read', component: ActivityPage },
  { path: 'sandbox', label: 'Sandbox', scope: 'onboarding:read', sandboxOnly: true, component: SandboxPage },
];
