// Starts GraphiQL on the page served at GET /graphql (src/graphql/graphiql.ts). A file of its own,
// not an inline script, so the page's Content-Security-Policy can say `script-src 'self'`. Plain
// browser JavaScript (ES2017), run as is: it is not compiled; scripts/build-server.js copies it to dist/.
(function () {
  'use strict';
  var root = document.getElementById('graphiql');
  var config = root.dataset;
  var fetcher = GraphiQL.createFetcher({ url: config.endpoint });
  ReactDOM.createRoot(root).render(
    React.createElement(GraphiQL, {
      fetcher: fetcher,
      defaultQuery: config.defaultQuery,
      // the admin API key goes in the headers pane; it is kept in this browser's localStorage
      // (shouldPersistHeaders) so a reload does not ask for it again
      defaultHeaders: config.defaultHeaders,
      isHeadersEditorEnabled: true,
      shouldPersistHeaders: true,
      defaultEditorToolsVisibility: 'headers',
    }),
  );
})();
