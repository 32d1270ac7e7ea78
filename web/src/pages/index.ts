import type { FunctionComponent } from 'preact';
import { ActivityPage } from './activity-page.tsx';
import { ReportsPage } from './reports-page.tsx';
import { TokensPage } from './tokens-page.tsx';
import { UsersPage } from './users-page.tsx';
import { WebhooksPage } from './webhooks-page.tsx';

/**
 * The dashboard's pages, in navigation order. A page is one entry here (its path after `#/`, its
 * label, the scopes it needs).
 */
export interface DashboardPage {
  path: string;
  label: string;
  scopes: readonly string[];
  component: FunctionComponent;
}

export const dashboardPages: readonly DashboardPage[] = [
  {
    path: 'tokens',
    label: 'Onboarding tokens',
    scopes: ['onboarding:read', 'onboarding:write'],
    component: TokensPage,
  },
  { path: 'reports', label: 'Reports', scopes: ['reports:read', 'reports:write'], component: ReportsPage },
  { path: 'users', label: 'Users', scopes: ['users:read'], component: UsersPage },
  { path: 'webhooks', label: 'Webhooks', scopes: ['webhooks:manage'], component: WebhooksPage },
  { path: 'activity', label: 'Activity', scopes: ['audit:read'], component: ActivityPage },
];
