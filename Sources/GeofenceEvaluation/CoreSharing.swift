import Dispatch
import GeofenceLogs

/// How a run reading a log with several threads shares the cores between reading and
/// evaluating, chosen batch by batch from what each way has cost (docs/evaluation.md#sharing-the-cores).
///
/// - ``Mode/split``: every thread parses the log's next round, then every thread evaluates the
///   batch (in slices). Best when evaluating costs more than reading.
/// - ``Mode/pipelined``: the batch is evaluated on the calling thread alone while the other
///   threads parse the next round (the reader's `readAhead`). Best when reading costs more:
///   one thread keeps up with the evaluation and no thread waits for the other stage, and the
///   one-thread evaluation skips the slices' bookkeeping. With nothing being parsed ahead (a
///   log's last batches) every thread evaluates, as split does.
///
/// Each mode's cost is the wall time from one batch to the next per fix, smoothed. A batch is
/// counted only when the batch before it ran in the same mode: the first batch carries the
/// reader's start, and the first batch after a change carries the other mode's work (after a
/// pipelined batch the next round is already parsed, which makes a split batch look cheap;
/// after a split batch nothing was parsed ahead, which makes a pipelined one look dear). The
/// next batches try both; then the cheaper one is kept, and every ``probeInterval`` counted
/// batches the other is tried until one of its batches is counted, so that a change along the
/// log is noticed, but for the tries of split while pipelined reads more than it evaluates
/// (``readingBound``), and for those of pipelined while split evaluates so long that one
/// thread alone could not evaluate its batch in the time split takes for all of it
/// (``oneThreadShare``). The events are the same whatever the choices (both ways evaluate every
/// batch in full, in log order).
public struct CoreSharing: Sendable {
    /// A way of sharing the cores for one batch.
    public enum Mode: Sendable, Equatable {
        /// Every thread parses, then every thread evaluates (in slices).
        case split
        /// The calling thread evaluates alone while the others parse the next round.
        case pipelined
    }

    /// Counted batches between two tries of the mode not in use (besides the early tries at
    /// ``earlyProbes``).
    public static let probeInterval = 16
    /// Counted batches after which the mode not in use is tried once more early on: the first
    /// measure of the mode tried first is taken on a cold start (caches, pages, tables still
    /// growing) and may make it look dearer than it is.
    public static let earlyProbes: Set<Int> = [4, 8]
    /// An early try after the first is skipped when one way's figure is this many times the
    /// other's: the first try has measured the other way warm, and one more would only cost
    /// its two batches (on the scattered log × 10k circles, a split batch cost 0.2–1.3 ms more
    /// than a pipelined one).
    public static let clearMargin = 1.25
    /// Counted costs kept per mode; its estimate is their least. Other work on the machine
    /// only ever adds time, so one slow batch does not make a mode look dear, while a real
    /// change along the log shows within this many batches of the mode.
    public static let window = 3
    /// Pipelined is *reading-bound* when, in each of its last ``window`` counted batches, the
    /// calling thread spent at least this many times as long in the reader (parsing the chunks
    /// the others had not taken, and joining) as evaluating: every thread had parsing to do
    /// until the batch was read, so split, which does the same work with more bookkeeping
    /// (slices, a wait at each stage's end), cannot be faster, and its tries are skipped.
    public static let readingBound = 1.0
    /// Pipelined evaluates each batch on one thread, so its batch takes at least as long as
    /// that; evaluated in slices by `threads` threads, the same batch took about
    /// `threads * oneThreadShare` times less (on the AIS trace × airports, ports and counties
    /// at 2 threads, 33 ms on one thread against 19.4 ms on two: 0.85; the slices' bookkeeping
    /// is a smaller share where evaluation is dear). While, in each of split's last ``window``
    /// counted batches (or as many as were counted), `threads * oneThreadShare` times its
    /// evaluating time is at least the whole batch's time, pipelined cannot be faster and is
    /// not tried.
    public static let oneThreadShare = 0.85

    /// The mode of the next batch.
    public private(set) var mode: Mode = .split
    private let threads: Int
    /// The last ``window`` counted seconds per fix, per mode (empty: not measured yet).
    private var split: [Double] = [], pipelined: [Double] = []
    /// The last ``window`` counted pipelined batches' reading time over evaluating time.
    private var pipelinedReading: [Double] = []
    /// The last ``window`` counted split batches' evaluating time, on one thread as
    /// ``oneThreadShare`` estimates it, over the whole batch's time.
    private var splitOneThread: [Double] = []
    private var batches = 0
    /// The mode the last recorded batch ran in (nil before the first).
    private var previous: Mode?
    /// The mode not in use is being tried (until one of its batches is counted).
    private var probing = false

    /// Whether the batch ``process(_:with:reader:)`` evaluated last ran on the calling thread
    /// alone (a pipelined batch with a round being parsed ahead); nil once recorded, or when
    /// the caller evaluated the batch itself.
    private var ranAlone: Bool? = nil

    /// When the batch being timed began (``startClock()``, or the last ``record(fixes:)``).
    private var clock = DispatchTime.now().uptimeNanoseconds
    /// When the batch being timed was handed to ``process(_:with:reader:)`` (nil: not yet): the time
    /// before it was spent reading.
    private var evaluationStart: UInt64? = nil

    /// - Parameter threads: the reader's and the run's threads; with 1 the mode stays ``Mode/split``
    ///   (which then means one thread for both).
    public init(threads: Int) {
        self.threads = threads
    }

    /// Sets `reader` to parse ahead during the next batch when that batch is pipelined. Call it
    /// before the reader's `next`.
    public func prepare(_ reader: LogReader) {
        reader.readAhead = mode == .pipelined
    }

    /// Evaluates `batch` with `run` as the mode says: on the calling thread alone when
    /// pipelined, but with every thread when `reader` (the log the batch came from) is parsing
    /// nothing ahead: after a log's last batch no thread would be left with work.
    public mutating func process(_ batch: [Fix], with run: EvaluationRun, reader: LogReader? = nil) {
        evaluationStart = DispatchTime.now().uptimeNanoseconds
        let alone = mode == .pipelined && reader?.isParsingAhead != false
        ranAlone = alone
        // The batch's devices as the reader knows them, if it does (docs/logs.md#the-devices-of-a-batch).
        run.process(batch, onOneThread: alone, devices: reader?.batchDevices)
    }

    /// Starts timing a batch now (by default a batch is timed from the end of the one before).
    public mutating func startClock() {
        clock = DispatchTime.now().uptimeNanoseconds
    }

    /// ``record(seconds:reading:fixes:)`` with the time since ``startClock()`` or the last call,
    /// the part of it before ``process(_:with:reader:)`` as the reading.
    public mutating func record(fixes: Int) {
        let now = DispatchTime.now().uptimeNanoseconds
        let reading = evaluationStart.map { Double(Swift.max($0, clock) - clock) / 1e9 }
        record(seconds: Double(now - clock) / 1e9, reading: reading, fixes: fixes)
        clock = now
        evaluationStart = nil
    }

    /// Records the batch just evaluated (`seconds` from the previous batch's end, `fixes` in it,
    /// `reading` of those seconds spent reading it, before its evaluation began, when known)
    /// under the mode it ran in, and chooses the mode of the next.
    public mutating func record(seconds: Double, reading: Double? = nil, fixes: Int) {
        // A pipelined batch with nothing parsed ahead (a log's last) ran as neither way runs
        // along a log: not counted, nor the batch after it (the first of the next log).
        if mode == .pipelined && ranAlone == false {
            ranAlone = nil
            previous = nil
            return
        }
        ranAlone = nil
        let ran = mode
        guard threads > 1, fixes > 0, seconds >= 0 else { return }
        defer { previous = ran }
        guard previous == ran else { return }           // the first batch, or the first after a change
        let cost = seconds / Double(fixes)
        /// `value` kept among the last ``window`` of `figures`.
        func keep(_ value: Double, in figures: inout [Double]) {
            figures.append(value)
            if figures.count > Self.window { figures.removeFirst() }
        }
        switch ran {
        case .split:
            keep(cost, in: &split)
            // Unknown phases count as reading (the tries go on).
            let evaluating = seconds - (reading ?? seconds)
            keep(seconds > 0 ? Double(threads) * Self.oneThreadShare * evaluating / seconds : 0, in: &splitOneThread)
        case .pipelined:
            keep(cost, in: &pipelined)
            // Unknown phases count as evaluation-bound (the tries go on).
            let evaluating = seconds - (reading ?? 0)
            keep(reading.map { evaluating > 0 ? $0 / evaluating : .infinity } ?? 0, in: &pipelinedReading)
        }
        batches += 1
        chooseNext()
    }

    /// The mode of the next batch, once a counted batch has been recorded: each mode measured
    /// first (split, then pipelined), then the cheaper (by the least of its last ``window``
    /// counted costs), but after ``earlyProbes`` (the later ones only while the figures are
    /// within ``clearMargin``) and every ``probeInterval`` counted batches the other, until
    /// one of its batches is counted; split is not tried while pipelined is reading-bound
    /// (``readingBound``), pipelined not while split's evaluation alone on one thread would
    /// take longer than split's batches (``oneThreadShare``).
    private mutating func chooseNext() {
        guard let s = split.min() else { mode = .split; return }
        let pipelinedCannotWin = (splitOneThread.min() ?? 0) >= 1
        guard let p = pipelined.min() else { mode = pipelinedCannotWin ? .split : .pipelined; return }
        let best: Mode = p < s ? .pipelined : .split
        let early = Self.earlyProbes.contains(batches)
            && (batches == Self.earlyProbes.min() || Swift.max(s, p) < Self.clearMargin * Swift.min(s, p))
        let splitCannotWin = best == .pipelined && pipelinedReading.count == Self.window
            && pipelinedReading.min()! >= Self.readingBound
        if probing {
            probing = false                                 // the try's batch was counted
        } else if (batches % Self.probeInterval == 0 || early) && !splitCannotWin && !(best == .split && pipelinedCannotWin) {
            mode = best == .split ? .pipelined : .split
            probing = true
            return
        }
        mode = best
    }
}
