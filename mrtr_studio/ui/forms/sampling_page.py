"""A person standing in for the model: read the sampling request, write (or pick) the reply.

Everything the server sent that shapes a reply is visible — messages (tool use and tool
results included), system prompt, maxTokens, model preferences, tools — and the reply's
model name and stop reason are editable, because exercising a server's handling of odd replies
is what a debugger is for. "Skip" leaves the key out of the retry (the MRTR way to decline).
"""

import html
import json
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from mrtr_studio.client.forms.sampling import (
    CANNED_REPLIES,
    STOP_REASONS,
    last_user_text,
    result_problems,
    suggested_model,
    summarize,
    text_reply,
)

from .answer_page import AnswerPage
from .elicitation_page import action_buttons
from .schema_form import error_line


def request_html(params: dict[str, Any], server_name: str = "") -> str:
    """The request as escaped rich text for a read-only view."""
    summary = summarize(params)
    out = [f"<p><b>{html.escape(server_name or 'The server')}</b> asks for a model reply.</p>"]
    if summary.system_prompt:
        out.append(f"<p><b>System prompt:</b> {html.escape(summary.system_prompt)}</p>")
    for role, text in summary.messages:
        out.append(f"<p><b>{html.escape(role)}:</b><br><span style='white-space: pre-wrap'>"
                   f"{html.escape(text)}</span></p>")
    facts = [f"maxTokens: {summary.max_tokens}"]
    if summary.model_hints:
        facts.append("model hints: " + ", ".join(summary.model_hints))
    facts += [f"{k}: {v}" for k, v in summary.priorities.items()]
    if summary.tools:
        facts.append("tools offered: " + ", ".join(summary.tools))
    facts += [f"{k}: {json.dumps(v)}" for k, v in summary.extras.items()]
    out.append("<p>" + "<br>".join(html.escape(f) for f in facts) + "</p>")
    if summary.has_tool_use:
        out.append("<p><i>This conversation contains tool use / tool results.</i></p>")
    return "".join(out)


class SamplingPage(AnswerPage):
    """Emits `answered(CreateMessageResult dict)` or `skipped()`."""

    def __init__(self, params: dict[str, Any], server_name: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.params = params
        layout = QVBoxLayout(self)
        self.view = QTextBrowser(self)
        self.view.setHtml(request_html(params, server_name))
        self.view.setAccessibleName("Sampling request")
        layout.addWidget(self.view, 1)
        form = QFormLayout()
        self.reply = QPlainTextEdit(self)
        self.reply.setTabChangesFocus(True)
        self.reply.setAccessibleName("Reply text")
        reply_label = QLabel("&Reply:", self)
        reply_label.setBuddy(self.reply)
        form.addRow(reply_label, self.reply)
        canned_row = QHBoxLayout()
        self.canned = QComboBox(self)
        for label, text in CANNED_REPLIES:
            self.canned.addItem(label, text)
        self.canned.setAccessibleName("Canned reply")
        self.use_canned = QPushButton("&Use canned", self)
        self.echo_button = QPushButton("&Echo last user message", self)
        canned_row.addWidget(self.canned, 1)
        canned_row.addWidget(self.use_canned)
        canned_row.addWidget(self.echo_button)
        form.addRow("Quick reply:", canned_row)
        self.model = QLineEdit(suggested_model(params), self)
        self.model.setAccessibleName("Model name")
        model_label = QLabel("&Model:", self)
        model_label.setBuddy(self.model)
        form.addRow(model_label, self.model)
        self.stop_reason = QComboBox(self)
        self.stop_reason.setEditable(True)
        self.stop_reason.addItems(["", *STOP_REASONS])
        self.stop_reason.setCurrentText("endTurn")
        self.stop_reason.setAccessibleName("Stop reason (empty to omit)")
        stop_label = QLabel("S&top reason:", self)
        stop_label.setBuddy(self.stop_reason)
        form.addRow(stop_label, self.stop_reason)
        layout.addLayout(form)
        self.error = error_line(self)
        self.error.setVisible(False)
        layout.addWidget(self.error)
        row, (self.send_button, self.skip_button) = action_buttons(self, "&Send reply", "S&kip")
        self.skip_button.setToolTip("Leave this input out of the retry")
        layout.addLayout(row)
        self.use_canned.clicked.connect(lambda: self.reply.setPlainText(str(self.canned.currentData())))
        self.echo_button.clicked.connect(lambda: self.reply.setPlainText(last_user_text(params)))
        self.send_button.clicked.connect(self.send)
        self.skip_button.clicked.connect(self.skip)

    def build_result(self) -> dict[str, Any]:
        return text_reply(self.reply.toPlainText(), self.model.text().strip(),
                          self.stop_reason.currentText().strip() or None)

    def send(self) -> dict[str, Any] | None:
        """Answer with the typed reply; refuses an empty reply or model name, saying why."""
        problems = []
        if not self.reply.toPlainText().strip():
            problems.append("Type a reply, pick a canned one, or echo.")
        if not self.model.text().strip():
            problems.append("The model name may not be empty.")
        result = self.build_result()
        problems += result_problems(result) if not problems else []
        self.error.setText(" ".join(problems))
        self.error.setVisible(bool(problems))
        if problems:
            (self.reply if not self.reply.toPlainText().strip() else self.model).setFocus(
                Qt.FocusReason.OtherFocusReason)
            return None
        return self._answer(result)
