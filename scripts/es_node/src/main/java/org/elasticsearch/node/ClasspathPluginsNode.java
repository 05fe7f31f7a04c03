package org.elasticsearch.node;

import org.elasticsearch.env.Environment;
import org.elasticsearch.plugins.MockPluginsService;
import org.elasticsearch.plugins.Plugin;
import org.elasticsearch.plugins.PluginsLoader;
import org.elasticsearch.plugins.PluginsService;

import java.util.Collection;
import java.util.List;

/**
 * A production {@link Node} whose plugins are plain classes on the classpath
 * (for example the netty4 HTTP transport) instead of plugin directories.
 *
 * <p>It lives in {@code org.elasticsearch.node} because the hooks it needs
 * ({@link NodeConstruction} and {@link NodeServiceProvider}) are package-private.
 * Every service except the plugins service is the production one.
 */
public final class ClasspathPluginsNode extends Node {

    public ClasspathPluginsNode(Environment environment, Collection<Class<? extends Plugin>> plugins) {
        super(NodeConstruction.prepareConstruction(environment, null, new NodeServiceProvider() {
            @Override
            PluginsService newPluginService(Environment env, PluginsLoader ignored) {
                return new MockPluginsService(env.settings(), env, List.copyOf(plugins));
            }
        }, true));
    }
}
