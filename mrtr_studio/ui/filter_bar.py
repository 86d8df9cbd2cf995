"""The message log's filter bar: the one filter language (trace/filter.py), the same expressions as
`mrtr-studio trace filter`, typed with completion, checked as you type, saved between sessions.

A mistake is shown inline with its column (FilterError's position) while the last valid filter
stays applied, so half-typed text never empties the log. Completion offers `complete()`'s field
names and values, plus the trace's own tools, operations and principals. What matches is given
to whoever listens (`changed`) as a BoundFilter: the log hides what does not match, the operations
list dims it (`ui/filter_links.py` wires them).
"""

from collections.abc import Callable, Iterator, Mapping

from PySide6.QtCore import QSettings, QStringListModel, Qt, QTimer, Signal
from PySide6.QtWidgets import QCompleter, QHBoxLayout, QLabel, QLineEdit, QMenu, QToolButton, QVBoxLayout, QWidget

from ..trace import TraceStore
from ..trace.filter import BoundFilter, Completion, Filter, FilterError, TraceIndex, compile_filter, complete
from . import tones

SAVED_KEY = "filters/saved"
MAX_SAVED = 30
#: On a trace this big a keystroke's filter waits for the next turn of the event loop: the keystrokes of
#: one turn (a paste, a burst of key events) are filtered once. It waits no longer: a person's next
#: keystroke comes a hundred milliseconds or more later, and the run it makes stale stops within a slice
#: of the text column (trace/text_column.SLICE), so a fixed wait (it was 40 ms) only added to every
#: keystroke's time. Checking the expression and showing a mistake stay immediate.
DEBOUNCE_ABOVE = 20_000
DEBOUNCE_MS = 0
_KNOWN_FIELDS = ("tool", "op", "task", "principal")


class _Known(Mapping[str, list[str]]):
    """The trace's values for complete(), found only for the field being completed."""

    def __init__(self, find: Callable[[str], list[str]]) -> None:
        self._find = find

    def __getitem__(self, name: str) -> list[str]:
        if name not in _KNOWN_FIELDS:
            raise KeyError(name)
        return self._find(name)

    def __iter__(self) -> Iterator[str]:
        return iter(_KNOWN_FIELDS)

    def __len__(self) -> int:
        return len(_KNOWN_FIELDS)


class FilterBar(QWidget):
    #: The applied filter changed (a valid expression, or none at all); read `bound()`.
    changed = Signal()

    def __init__(self, store: TraceStore, settings: QSettings | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.store = store
        self.settings = settings
        self.filter: Filter | None = None
        self._bound: BoundFilter | None = None
        self._completions: list[Completion] = []
        self._known_cache: tuple[tuple[int, int], dict[str, list[str]]] = ((-1, -1), {})
        self.edit = QLineEdit()
        self.edit.setObjectName("filterExpression")
        self.edit.setPlaceholderText("Filter: tool:delete_file round:>1 -kind:auth state:altered duration:>500ms…")
        self.edit.setClearButtonEnabled(True)
        self.error = QLabel("")
        self.error.setObjectName("filterError")
        self.error.setStyleSheet(tones.color_style(tones.ERROR, self))
        self.error.setTextFormat(Qt.TextFormat.PlainText)
        self.error.hide()
        self.completer = QCompleter(QStringListModel(self), self)
        self.completer.setWidget(self.edit)
        self.completer.setCompletionMode(QCompleter.CompletionMode.UnfilteredPopupCompletion)
        self.completer.activated.connect(self._complete_with)
        self.saved_button = QToolButton()
        self.saved_button.setText("Saved")
        self.saved_button.setToolTip("Save this filter, or use one saved before")
        self.saved_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.saved_menu = QMenu(self.saved_button)
        self.saved_menu.aboutToShow.connect(self._fill_saved_menu)
        self.saved_button.setMenu(self.saved_menu)
        self._fill_saved_menu()
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.edit, 1)
        row.addWidget(self.saved_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(1)
        layout.addLayout(row)
        layout.addWidget(self.error)
        self._pending: Filter | None = None
        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(DEBOUNCE_MS)
        self._debounce.timeout.connect(lambda: self._apply(self._pending))
        self.edit.textChanged.connect(self._text_changed)
        self.edit.textEdited.connect(lambda _text: QTimer.singleShot(0, self, self.offer_completions))

    # --- the expression ---------------------------------------------------------------------

    def set_text(self, text: str) -> None:
        self.edit.setText(text)

    def _text_changed(self, text: str) -> None:
        if not text.strip():
            self._debounce.stop()
            self._show_error(None)
            self._apply(None)
            return
        try:
            compiled = compile_filter(text)
        except FilterError as exc:
            self._show_error(exc)
            return  # the last valid filter stays applied
        self._show_error(None)
        if len(self.store.messages) >= DEBOUNCE_ABOVE:
            self._pending = compiled
            self._debounce.start()
        else:
            self._apply(compiled)

    def _show_error(self, exc: FilterError | None) -> None:
        if exc is None:
            self.error.clear()
            self.error.hide()
            self.edit.setToolTip("")
            return
        self.error.setText(f"column {exc.position + 1}: {exc.message}")
        self.edit.setToolTip(self.error.text())
        self.error.show()

    def _apply(self, compiled: Filter | None) -> None:
        if compiled is None and self.filter is None:
            return
        self.filter = compiled
        self.rebind()

    def rebind(self) -> None:
        """Bind again to the store as it is now (messages arrived, a file opened) and tell the views."""
        if self.filter is None:
            self._bound = None
        else:
            store = self.store
            self._bound = self.filter.bind(store.operations, store.messages, store.operations_by_id,
                                           store.live_messages_of)
        self.changed.emit()

    def bound(self) -> BoundFilter | None:
        return self._bound

    # --- completion -------------------------------------------------------------------------

    def known_values(self) -> dict[str, set[str]]:
        """Values from this trace for the fields whose values no list can know in advance."""
        return {name: set(self._known(name)) for name in _KNOWN_FIELDS}

    def _known(self, name: str) -> list[str]:
        """One field's values, sorted, found once per size of the trace: a keystroke must not walk
        250,000 operations (or 1,000,000 messages, for the principals) again."""
        size = (len(self.store.operations), len(self.store.messages))
        if self._known_cache[0] != size:
            self._known_cache = (size, {})
        values = self._known_cache[1]
        if name not in values:
            ops = self.store.operations
            found = {op.target for op in ops if op.method == "tools/call" and op.target} if name == "tool" else \
                {op.id for op in ops} if name == "op" else {op.task_id for op in ops if op.task_id} \
                if name == "task" else self._principals()
            values[name] = sorted(v for v in found if v)
        return values[name]

    def _principals(self) -> set[str]:
        """Who the operations ran as (the recorder's metadata, else the studio's requestState)."""
        index = TraceIndex(self.store.operations, self.store.messages)
        return {p for p in (index.principal(op.id) for op in self.store.operations) if p}

    def offer_completions(self) -> list[Completion]:
        """complete()'s suggestions for the word at the cursor, shown in the completer's popup."""
        text, cursor = self.edit.text(), self.edit.cursorPosition()
        self._completions = complete(text, cursor, _Known(self._known))[:50]
        model = self.completer.model()
        assert isinstance(model, QStringListModel)
        model.setStringList([c.label or c.replacement for c in self._completions])
        if self._completions and self.edit.hasFocus():
            self.completer.complete()
        else:
            self.completer.popup().hide()
        return self._completions

    def _complete_with(self, label: str) -> None:
        chosen = next((c for c in self._completions if (c.label or c.replacement) == label), None)
        if chosen is not None:
            self.accept_completion(chosen)

    def accept_completion(self, completion: Completion) -> None:
        text = self.edit.text()
        replacement = completion.replacement
        after = text[completion.end:]
        if not replacement.endswith(":") and not after.startswith(" "):
            replacement += " "
        self.edit.setText(text[:completion.start] + replacement + after)
        self.edit.setCursorPosition(completion.start + len(replacement))

    # --- saved filters ----------------------------------------------------------------------

    def saved(self) -> list[str]:
        if self.settings is None:
            return []
        value = self.settings.value(SAVED_KEY, [])
        values = [value] if isinstance(value, str) else list(value) if isinstance(value, list | tuple) else []
        return [str(v) for v in values if str(v).strip()][:MAX_SAVED]

    def save_current(self) -> bool:
        """Keep the expression (when valid) for later sessions, newest first."""
        text = self.edit.text().strip()
        if self.settings is None or not text or self.error.isVisible():
            return False
        self.settings.setValue(SAVED_KEY, [text, *[s for s in self.saved() if s != text]][:MAX_SAVED])
        return True

    def forget_saved(self) -> None:
        if self.settings is not None:
            self.settings.remove(SAVED_KEY)

    def _fill_saved_menu(self) -> None:
        menu = self.saved_menu
        menu.clear()
        save = menu.addAction("Save this filter")
        save.setObjectName("saveFilter")
        save.triggered.connect(lambda _=False: self.save_current())
        saved = self.saved()
        if saved:
            menu.addSeparator()
            for text in saved:
                action = menu.addAction(text.replace("&", "&&"))
                action.triggered.connect(lambda _=False, t=text: self.set_text(t))
            menu.addSeparator()
            menu.addAction("Forget the saved filters").triggered.connect(lambda _=False: self.forget_saved())
