// A thin client: it starts `promptc lsp` in the workspace and adds one command. Everything the
// editor shows about a project comes from the server.
const vscode = require("vscode");
const path = require("path");
const os = require("os");
const { execFile } = require("child_process");
const { LanguageClient } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const config = vscode.workspace.getConfiguration("promptc");
  const command = config.get("path", "promptc");
  const folder = vscode.workspace.workspaceFolders && vscode.workspace.workspaceFolders[0];
  client = new LanguageClient(
    "promptc",
    "promptc",
    { command, args: ["lsp"], options: { cwd: folder ? folder.uri.fsPath : undefined } },
    {
      documentSelector: [
        { scheme: "file", language: "yaml" },
        { scheme: "file", language: "jinja" },
        { scheme: "file", pattern: "**/*.j2" },
      ],
      initializationOptions: { inlayHints: config.get("inlayHints", true) },
    }
  );
  client.start();
  context.subscriptions.push(
    vscode.commands.registerCommand("promptc.openReport", () => openReport(command, folder))
  );
}

// `promptc report --format html` of the default cell (or the profile picked), written to a
// temporary file and opened in the browser.
async function openReport(command, folder) {
  if (!folder) {
    vscode.window.showErrorMessage("promptc: open the project folder first");
    return;
  }
  const profile = await vscode.window.showInputBox({ prompt: "Profile (empty: the project's default)" });
  const out = path.join(os.tmpdir(), `promptc-report-${Date.now()}.html`);
  const args = ["report", "--format", "html", "--out", out];
  if (profile) args.push("--profile", profile);
  execFile(command, args, { cwd: folder.uri.fsPath }, (error, _stdout, stderr) => {
    if (error && !require("fs").existsSync(out)) {
      vscode.window.showErrorMessage(`promptc report failed: ${stderr || error.message}`);
      return;
    }
    vscode.env.openExternal(vscode.Uri.file(out));
  });
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
