import { INTERNAL_ROUTES, PUBLIC_ROUTES } from '@idv/contracts';
import { RouteTemplates } from '../src/http/route-labels';

describe('route templates', () => {
  const templates = new RouteTemplates();
  for (const route of [...PUBLIC_ROUTES, ...INTERNAL_ROUTES]) templates.add(route.path, route.method);

  it('when a path names a contract route, then its label is the contract template, trailing slash or not', () => {
    expect(templates.match('GET', '/v1/verification-sessions/vs_01JD3Z8Q5X8R0VQ1T7W9Y2K4M6')).toBe(
      '/v1/verification-sessions/{id}',
    );
    expect(templates.match('POST', '/v1/verification-sessions/anything/cancel/')).toBe('/v1/verification-sessions/{id}/cancel');
    expect(templates.match('GET', '/v1/qr/lt_x.png')).toBe('/v1/qr/{token}.png');
    expect(templates.match('HEAD', '/v1/usage/sessions.csv')).toBe('/v1/usage/sessions.csv');
  });

  it('when a literal segment and a parameter both match, then the literal wins for its method', () => {
    expect(templates.match('POST', '/internal/sessions/activity')).toBe('/internal/sessions/activity');
    expect(templates.match('GET', '/internal/sessions/vs_1')).toBe('/internal/sessions/{id}');
  });

  it('when the method is not the route’s, then the path’s template still labels it; an unknown path has none', () => {
    expect(templates.match('PATCH', '/v1/webhook-endpoints/whep_1')).toBe('/v1/webhook-endpoints/{id}');
    expect(templates.match('GET', '/v1/nothing-here')).toBeUndefined();
    expect(templates.match('GET', '/v1/verification-sessions/a/b')).toBeUndefined();
  });

  it('when a template uses express syntax, then it matches the same way and keeps its own form', () => {
    const pages = new RouteTemplates();
    pages.add('/s/:sessionId');
    expect(pages.match('POST', '/s/vs_1')).toBe('/s/:sessionId');
  });
});
