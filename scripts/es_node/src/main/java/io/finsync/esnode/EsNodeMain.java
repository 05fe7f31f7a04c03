package io.finsync.esnode;

import org.elasticsearch.common.logging.LogConfigurator;
import org.elasticsearch.common.settings.Settings;
import org.elasticsearch.env.Environment;
import org.elasticsearch.http.HttpServerTransport;
import org.elasticsearch.node.ClasspathPluginsNode;
import org.elasticsearch.node.InternalSettingsPreparer;
import org.elasticsearch.node.Node;
import org.elasticsearch.transport.netty4.Netty4Plugin;

import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Starts one unsecured, single-node Elasticsearch bound to 127.0.0.1.
 *
 * <p>Usage: {@code EsNodeMain <home-dir> <http-port>}; port 0 picks a free port.
 * Data, logs and config live under the home directory. When HTTP is up it prints
 * {@code FINSYNC_ES_READY http://127.0.0.1:PORT} on stdout. SIGTERM closes the node.
 * With {@code -Dfinsync.es.exitOnStdinEof=true} the node also exits when its stdin
 * reaches end-of-file, so it cannot outlive a launcher that died.
 */
public final class EsNodeMain {

    /** The real stdout; LogConfigurator later points System.out at log4j. */
    private static final PrintStream STDOUT = System.out;

    private EsNodeMain() {}

    public static void main(String[] args) {
        try {
            run(args);
        } catch (Throwable t) {
            t.printStackTrace(STDOUT);
            STDOUT.println("FINSYNC_ES_FAILED " + t);
            STDOUT.flush();
            Runtime.getRuntime().halt(1);
        }
    }

    private static void run(String[] args) throws Exception {
        if (args.length != 2) {
            System.err.println("usage: EsNodeMain <home-dir> <http-port>");
            System.exit(2);
        }
        Path home = Path.of(args[0]).toAbsolutePath();
        int httpPort = Integer.parseInt(args[1]);
        Path config = Files.createDirectories(home.resolve("config"));
        Files.createDirectories(home.resolve("data"));
        Files.createDirectories(home.resolve("logs"));
        try (InputStream in = EsNodeMain.class.getResourceAsStream("/finsync-log4j2.properties")) {
            Files.copy(in, config.resolve("log4j2.properties"), StandardCopyOption.REPLACE_EXISTING);
        }

        Settings settings = Settings.builder()
            .put("path.home", home.toString())
            .put("path.data", home.resolve("data").toString())
            .put("path.logs", home.resolve("logs").toString())
            .put("cluster.name", "finsync-local")
            .put("node.name", "finsync-es")
            .put("network.host", "127.0.0.1")
            .put("http.port", httpPort)
            .put("transport.port", 0)
            .put("discovery.type", "single-node")
            .put("cluster.routing.allocation.disk.threshold_enabled", false)
            .build();

        LogConfigurator.registerErrorListener();
        Environment env = InternalSettingsPreparer.prepareEnvironment(settings, Map.of(), config, () -> "finsync-es");
        LogConfigurator.setNodeName("finsync-es");
        LogConfigurator.configure(env, true);

        Node node = new ClasspathPluginsNode(env, List.of(Netty4Plugin.class, RootInfoPlugin.class));
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                node.close();
                node.awaitClose(30, TimeUnit.SECONDS);
            } catch (Exception e) {
                e.printStackTrace(STDOUT);
            } finally {
                STDOUT.println("FINSYNC_ES_STOPPED");
                STDOUT.flush();
                stopped.countDown();
            }
        }, "finsync-es-shutdown"));

        if (Boolean.getBoolean("finsync.es.exitOnStdinEof")) {
            Thread watchdog = new Thread(() -> {
                try {
                    while (System.in.read() != -1) {
                        // ignore input; wait for end-of-file
                    }
                } catch (Exception ignored) {
                    // treat a broken stdin like end-of-file
                }
                System.exit(0);
            }, "finsync-es-stdin-watchdog");
            watchdog.setDaemon(true);
            watchdog.start();
        }

        node.start();
        int port = node.injector().getInstance(HttpServerTransport.class).boundAddress().publishAddress().getPort();
        STDOUT.println("FINSYNC_ES_READY http://127.0.0.1:" + port);
        STDOUT.flush();
        stopped.await();
    }
}
